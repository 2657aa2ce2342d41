"""Fill and submit a form: type into fields, pick an option, tick a checkbox with real
input events, read the form's values back, submit, and read the page's answer."""

import asyncio
from pathlib import Path

import cdpkit
from cdpkit import tools

PAGE = (Path(__file__).parent / "pages" / "form.html").resolve().as_uri()


async def main() -> None:
    async with cdpkit.launch() as browser:
        page = await browser.new_page(PAGE)

        await tools.type_text(page, "Ada Lovelace", selector="#name")
        await tools.type_text(page, "ada@example.com", selector="#email")
        await tools.select_option(page, "Pro", selector="#plan")  # by label or value
        await tools.click(page, selector="#news")
        await tools.type_text(page, "Looking forward to it.", selector="#message")

        print("Form values before submitting:")
        for field in await tools.form_values(page, selector="#signup"):
            value = field.checked if field.checked is not None else field.value
            print(f"  {field.name}: {value!r}")

        await tools.click(page, selector="button[type=submit]")
        await tools.wait_for(page, text="Welcome")
        print(await tools.visible_text(page, selector="#result"))


if __name__ == "__main__":
    asyncio.run(main())
