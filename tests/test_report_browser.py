"""report.html as a person sees it: opened in a real headless Chromium at 1280x800.

The verdict line and the per-function table lie inside the first viewport, and a folded section
opens when its summary is clicked. Read on the shared gate of torch's copies (copies_gate): a
failing report, whose first screen also holds a regression's reproduction.

Chromium is driven with Selenium through Debian's chromedriver (packages chromium and
chromium-driver, which .ci/run installs): Selenium is a plain Python package, and with the
driver's path given it downloads nothing, where Playwright and pyppeteer fetch a browser build of
their own. The test is skipped only where no Chromium is installed.
"""

import shutil

import pytest
from copies_gate import copies_gate

VIEWPORT = {"width": 1280, "height": 800}
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium chromium-driver)")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """report.html of the shared gate, loaded in headless Chromium with a 1280x800 viewport."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={VIEWPORT['width']},{VIEWPORT['height']}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**VIEWPORT, "deviceScaleFactor": 1, "mobile": False})
        driver.get((copies_gate(tmp_path_factory) / "report" / "report.html").as_uri())
        yield driver
    finally:
        driver.quit()


def box(driver, selector: str) -> dict:
    return driver.execute_script(f"return document.querySelector({selector!r}).getBoundingClientRect().toJSON()")


def test_the_verdict_and_the_per_function_table_lie_inside_the_first_viewport(page):
    assert page.execute_script("return [window.innerWidth, window.innerHeight]") == [VIEWPORT["width"], VIEWPORT["height"]]
    assert page.execute_script("return window.scrollY") == 0
    for selector in ("#verdict", "#functions table"):
        found = box(page, selector)
        assert found["top"] >= 0 and found["left"] >= 0, (selector, found)
        assert found["bottom"] <= VIEWPORT["height"] and found["right"] <= VIEWPORT["width"], (selector, found)
    verdict = page.find_element("css selector", "#verdict").text
    assert verdict.startswith("Gate: FAILED under the differential rule (the default):")
    rows = page.find_elements("css selector", "#functions tbody tr")
    assert len(rows) == 5 and all(row.is_displayed() for row in rows)


def test_a_folded_section_opens_when_its_summary_is_clicked(page):
    details = page.find_element("xpath", "//h2[text()='How the gate decides']/following-sibling::details[1]")
    table = details.find_element("css selector", "table")
    assert details.get_attribute("open") is None and not table.is_displayed()
    summary = details.find_element("css selector", "summary")
    page.execute_script("arguments[0].scrollIntoView()", summary)
    summary.click()
    assert details.get_attribute("open") is not None and table.is_displayed()
    assert "OPTIMAL" in table.text
