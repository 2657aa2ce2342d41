// A stand-in for a third-party tracker that the intercept example blocks.
document.getElementById("tracking").textContent = "Tracking: on";
