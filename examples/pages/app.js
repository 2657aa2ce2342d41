// Loads the product list with fetch() and renders it.
fetch("data/products.json")
  .then((response) => response.json())
  .then((products) => {
    const list = document.getElementById("products");
    list.innerHTML = "";
    for (const product of products) {
      const item = document.createElement("li");
      item.textContent = `${product.name}: ${product.price} EUR`;
      list.appendChild(item);
    }
  });
