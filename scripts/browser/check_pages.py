"""Drives the grundy pages in headless Chromium (Selenium + chromedriver) against a live server.

    python check_pages.py BASE_URL SCREENSHOT_DIR

With KEYED_BASE and KEYED_KEY set (a second server with an API key file, and a `jobs` key of it),
the Jobs page is also checked against a server that needs a key: it asks for one, refuses a wrong
one, keeps the right one for the tab only, says whose jobs it lists, and follows a job to done.

Each check plays, plots or watches as a person would, with clicks and typing, and asserts what
the page shows against the API's own answers. The browser's console must stay free of errors
(log level SEVERE) throughout. Prints one line per check and a closing
`browser: N passed, M failed`; exits 1 when any check failed.
"""

import json
import os
import sys
import time
import traceback
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

BASE = sys.argv[1].rstrip("/")
SHOTS = sys.argv[2]
os.makedirs(SHOTS, exist_ok=True)

DESKTOP = (1280, 1000)
PHONE = (390, 844)


def api(method, path, body=None, accept="application/json"):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("accept", accept)
    if data is not None:
        req.add_header("content-type", "application/json")
    with urllib.request.urlopen(req, timeout=60) as resp:
        return resp.status, dict(resp.headers), resp.read()


def api_json(method, path, body=None):
    return json.loads(api(method, path, body)[2])


def make_driver():
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--lang=en-US",
        f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=opts)
    driver.set_page_load_timeout(60)
    return driver


D = make_driver()
SEVERE = []


def console_errors():
    """SEVERE browser-log entries since the last call (the log is drained by reading it)."""
    out = [e for e in D.get_log("browser") if e.get("level") == "SEVERE"]
    SEVERE.extend(out)
    return out


def wait(cond, timeout=30, what="condition"):
    try:
        return WebDriverWait(D, timeout, poll_frequency=0.1).until(lambda d: cond())
    except TimeoutException:
        raise AssertionError(f"timed out after {timeout} s waiting for {what}") from None


def q(css):
    return D.find_element(By.CSS_SELECTOR, css)


def qs(css):
    return D.find_elements(By.CSS_SELECTOR, css)


def text(css):
    return q(css).text.strip()


def shot(name):
    path = os.path.join(SHOTS, f"{name}.png")
    D.save_screenshot(path)
    return path


def full_shot(name):
    """A screenshot of the whole page height (the window is resized, then restored)."""
    w, h = D.get_window_size()["width"], D.get_window_size()["height"]
    total = D.execute_script("return document.documentElement.scrollHeight")
    D.set_window_size(w, min(max(h, total + 120), 6000))
    time.sleep(0.2)
    path = shot(name)
    D.set_window_size(w, h)
    return path


def load(fragment="play"):
    D.get(f"{BASE}/#{fragment}")
    wait(lambda: D.execute_script("return document.body.dataset.ready === 'true'"), what="the page script")
    wait(lambda: q(f"#{fragment}").is_displayed(), what=f"#{fragment} shown")


def set_value(css, value):
    el = q(css)
    el.clear()
    el.send_keys(str(value))


def choose(name, value):
    q(f'input[name="{name}"][value="{value}"]').click()


def game_state():
    g = q("#game")
    return g.get_attribute("data-turn"), g.get_attribute("data-winner")


def wait_turn(timeout=60):
    """Waits until it is the player's move or the game is over; returns data-turn."""
    wait(lambda: game_state()[0] in ("you", "over") and q("#game").get_attribute("data-busy") == "false"
         or game_state()[0] == "over", timeout, "the player's turn or the end of the game")
    return game_state()[0]


def start_game(game, play, position=None, code=None, heaps=None, first="you"):
    choose("game", game)
    choose("play", play)
    if game == "octal":
        set_value("#setup-code", code)
        set_value("#setup-heaps", ", ".join(map(str, heaps)))
    else:
        set_value("#setup-position", ", ".join(map(str, position)))
    choose("first", first)
    q("#setup-start").click()
    wait(lambda: q("#game").is_displayed(), what="the game board")


# ---------------------------------------------------------------- checks

def check_page_loads():
    status, headers, body = api("GET", "/")
    h = {k.lower(): v for k, v in headers.items()}
    assert status == 200 and h["content-type"].startswith("text/html"), h.get("content-type")
    csp = h["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp, csp
    assert h["x-content-type-options"] == "nosniff"
    load("play")
    assert "grundy" in D.title
    hrefs = [a.get_attribute("href") for a in qs("nav a")]
    assert f"{BASE}/docs/" in hrefs and f"{BASE}/openapi.json" in hrefs, hrefs
    assert q('nav a[data-page="play"]').get_attribute("aria-current") == "page"
    # Every form control has an accessible name (a label, aria-label or aria-labelledby).
    unnamed = D.execute_script("""
        return [...document.querySelectorAll('input, select, button, canvas')].filter(e => {
          if (e.type === 'hidden') return false;
          const lab = e.labels && e.labels.length;
          return !(lab || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || (e.textContent || '').trim());
        }).map(e => e.id || e.outerHTML.slice(0, 60));""")
    assert not unnamed, f"controls without an accessible name: {unnamed}"
    shot("01-play-start-desktop")
    # The console capture itself works (else "no console errors" would prove nothing).
    D.execute_script("console.error('browser-check: self-test of the console capture')")
    got = wait(lambda: [e for e in D.get_log("browser") if "self-test" in e["message"]], 10, "the self-test error")
    assert got[0]["level"] == "SEVERE", got


def check_welter_win():
    """Normal play from an N-position; the page's own hints give the winning moves, which the
    script plays by clicking the coin and then the square. The engine must lose."""
    position = [1, 3, 7, 8, 11, 19]
    truth = api_json("POST", "/v1/welter/value", {"position": position, "play": "normal"})
    assert truth["outcome"] == "N", truth
    load("play")
    start_game("welter", "normal", position=position)
    assert wait_turn() == "you"
    assert text("#game-value") == str(truth["value"]), text("#game-value")
    assert text("#game-outcome").startswith("N"), text("#game-outcome")
    # Show your work: the Mating and Triangle methods for the starting position.
    q("#explain").click()
    wait(lambda: "Mating" in q("#explain-out").text and "Triangle" in q("#explain-out").text, what="the explanation")
    assert "3 ⊕ 19 − 1" in q("#explain-out").text, q("#explain-out").text[:300]
    full_shot("02-welter-explain")
    moves = 0
    while wait_turn() == "you":
        q("#hint").click()
        wait(lambda: qs("#hint-list button[data-move]"), what="the winning moves")
        m = json.loads(qs("#hint-list button[data-move]")[0].get_attribute("data-move"))
        q(f"#sq-{m['from']}").click()
        wait(lambda: "selected" in q(f"#sq-{m['from']}").get_attribute("class"), what="the coin selected")
        q(f"#sq-{m['to']}").click()
        moves += 1
        assert moves < 200, "the game does not end"
    turn, winner = game_state()
    assert winner == "you", f"started in an N-position playing winning moves, but the winner is {winner}"
    assert "you win" in text("#turn"), text("#turn")
    assert len(qs("#history li")) >= 2
    shot("03-welter-won")
    return f"won in {moves} moves"


def check_welter_misere_loss():
    """Misère play from a P-position, the script moving first along a losing line (typed in the
    move form with the keyboard): the engine must win."""
    candidates = [[0, 2, 5, 6], [1, 2, 4, 7], [2, 3, 5, 9], [1, 4, 6, 8, 9], [0, 3, 5, 6, 10], [2, 4, 5, 7]]
    position = None
    for c in candidates + [[a, b, a + b + 1] for a in range(1, 6) for b in range(a + 1, 8)]:
        if api_json("POST", "/v1/welter/value", {"position": c, "play": "misere"})["outcome"] == "P":
            position = c
            break
    assert position, "no misère P-position among the candidates"
    load("play")
    start_game("welter", "misere", position=position)
    moves = 0
    while wait_turn() == "you":
        assert text("#game-outcome").startswith("P") or moves > 0, text("#game-outcome")
        coins = sorted(int(b.get_attribute("data-square")) for b in qs("#board .sq.coin"))
        frm = next(c for c in reversed(coins) if any(s not in coins for s in range(c)))
        to = max(s for s in range(frm) if s not in coins)
        if moves == 0:
            # Keyboard only, on the board: Enter on the coin, arrow keys to the square, Enter.
            q(f"#sq-{frm}").send_keys(Keys.ENTER)
            wait(lambda: "selected" in q(f"#sq-{frm}").get_attribute("class"), what="the coin selected")
            for _ in range(frm - to):
                D.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
            assert D.switch_to.active_element.get_attribute("id") == f"sq-{to}", D.switch_to.active_element.get_attribute("id")
            D.switch_to.active_element.send_keys(Keys.ENTER)
        else:
            # Typed in the move form.
            set_value("#move-from", frm)
            set_value("#move-to", to)
            q("#move-to").send_keys(Keys.ENTER)
        moves += 1
        assert moves < 200, "the game does not end"
    turn, winner = game_state()
    assert winner == "engine", f"a misère P-position against a perfect engine, but the winner is {winner}"
    shot("04-welter-misere-lost")
    return f"position {position}, lost after {moves} moves as expected"


def check_octal_heaps():
    """A sum of 0.07 heaps from an N-position; the script plays the page's winning-move buttons."""
    heaps = [5, 9, 20]
    truth = api_json("POST", "/v1/octal/winning-moves", {"code": "0.07", "heaps": heaps})
    assert truth["outcome"] == "N", truth
    load("play")
    start_game("octal", "normal", code="0.07", heaps=heaps)
    moves = 0
    while wait_turn() == "you":
        q("#hint").click()
        wait(lambda: qs("#hint-list button[data-move]"), what="the winning moves")
        qs("#hint-list button[data-move]")[0].click()
        moves += 1
        assert moves < 200, "the game does not end"
    assert game_state()[1] == "you", game_state()
    shot("05-octal-heaps-won")
    return f"won in {moves} moves"


def check_octal_misere():
    """A misère sum of 0.07 heaps from a misère N-position: the page's winning moves (from the
    misère quotient) win, and no nim value is shown."""
    heaps = [5, 9, 20]
    truth = api_json("POST", "/v1/octal/winning-moves", {"code": "0.07", "heaps": heaps, "play": "misere"})
    assert truth["outcome"] == "N" and "value" not in truth, truth
    load("play")
    start_game("octal", "misere", code="0.07", heaps=heaps)
    moves = 0
    while wait_turn() == "you":
        assert "misère" in text("#game-value"), text("#game-value")
        q("#hint").click()
        wait(lambda: qs("#hint-list button[data-move]"), what="the winning moves")
        qs("#hint-list button[data-move]")[0].click()
        moves += 1
        assert moves < 200, "the game does not end"
    assert game_state()[1] == "you", game_state()
    shot("05b-octal-misere-won")
    return f"won in {moves} moves"


def check_misere_quotient():
    """The explorer's misère quotient of 0.123 for heaps 0..20: |Q| = 20, |P| = 5 (Plambeck
    2005), Φ for 21 heaps, the presentation, and the whole 20 × 20 table."""
    truth = api_json("POST", "/v1/octal/misere/quotient", {"code": "0.123", "max_heap": 20})
    assert (truth["q_size"], truth["p_size"]) == (20, 5), truth
    load("explore")
    set_value("#ex-code", "0.123")
    set_value("#ex-mq-n", 20)
    q("#ex-mq-go").click()
    wait(lambda: qs("#ex-mq-q"), 60, "the misère quotient")
    assert text("#ex-mq-q") == "20" and text("#ex-mq-p") == "5", (text("#ex-mq-q"), text("#ex-mq-p"))
    assert len(qs("#ex-mq-phi tbody tr")) == 21
    assert len(qs("#ex-mq-table tbody tr")) == 20
    assert "|" in text("#ex-mq-presentation"), text("#ex-mq-presentation")
    full_shot("08b-explorer-misere-quotient")
    return f"presentation {text('#ex-mq-presentation')}"


def check_max_welter():
    """Max-Welter from an N-position: only the rightmost coin is offered; winning moves win."""
    position = [2, 5, 6, 8, 10]
    truth = api_json("POST", "/v1/max-welter/value", {"position": position, "play": "normal"})
    assert truth["outcome"] == "N", truth
    load("play")
    start_game("max-welter", "normal", position=position)
    assert wait_turn() == "you"
    # Selecting a coin that is not the rightmost one is refused with a message.
    q("#sq-2").click()
    wait(lambda: "rightmost" in q("#play-error").text, what="the Max-Welter rule message")
    moves = 0
    while wait_turn() == "you":
        q("#hint").click()
        wait(lambda: qs("#hint-list button[data-move]"), what="the winning moves")
        qs("#hint-list button[data-move]")[0].click()
        moves += 1
        assert moves < 200, "the game does not end"
    assert game_state()[1] == "you", game_state()
    shot("06-max-welter-won")
    return f"won in {moves} moves"


def check_explorer():
    """0.07 plotted for n = 10^6: the marked period is 34 and the preperiod the API's."""
    seq = api_json("POST", "/v1/octal/sequence", {"code": "0.07", "n": 200})
    per = seq["periodicity"]
    assert per["status"] == "periodic" and per["period"] == 34, per
    load("explore")
    set_value("#ex-code", "0.07")
    set_value("#ex-n", 1000000)
    q("#ex-plot").click()
    wait(lambda: q("#ex-result").get_attribute("data-ready") == "true", 120, "the plot of 0.07")
    assert text("#ex-period") == "34", text("#ex-period")
    assert text("#ex-preperiod") == str(per["preperiod"]), (text("#ex-preperiod"), per)
    assert "Thm" in text("#ex-theorem") or "Theorem" in text("#ex-theorem"), text("#ex-theorem")
    canvas = q("#ex-canvas")
    assert canvas.get_attribute("data-marked-period") == "34"
    assert canvas.get_attribute("data-marked-preperiod") == str(per["preperiod"])
    assert canvas.get_attribute("data-end") == "1000000"
    inked = D.execute_script("""
        const c = document.getElementById('ex-canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n;""")
    assert inked > 2000, f"the plot looks empty ({inked} pixels drawn)"
    shot("07-explorer-0.07-million")
    q("#ex-zoom-start").click()
    want_end = per["preperiod"] + 3 * per["period"]
    wait(lambda: q("#ex-canvas").get_attribute("data-end") == str(want_end), what="the zoom")
    assert q("#ex-canvas").get_attribute("data-marked-period") == "34"
    assert "preperiod" in q("#ex-canvas").get_attribute("aria-label")
    full_shot("08-explorer-0.07-zoomed")
    return f"preperiod {per['preperiod']}, period 34, values via {text('#ex-source')}"


def check_injected_markup_is_text():
    """A code that is markup comes back in the server's 422 detail; the page shows it as text."""
    evil = '<img src=x onerror="window.__pwned=1"><b>bold</b>'
    load("explore")
    set_value("#ex-code", evil)
    set_value("#ex-n", 100)
    q("#ex-plot").click()
    wait(lambda: q("#ex-error").is_displayed(), what="the problem detail")
    shown = q("#ex-error").text
    assert "<img" in shown and "<b>" in shown, shown
    assert not qs("#ex-error *") and not qs("main img"), "markup from the response was parsed"
    load("play")
    choose("game", "octal")
    set_value("#setup-code", evil)
    q("#setup-start").click()
    wait(lambda: q("#play-error").is_displayed(), what="the play error")
    assert "<img" in q("#play-error").text and not qs("#play-error *")
    assert D.execute_script("return window.__pwned === undefined")
    # The two refused requests are the only console errors allowed here.
    expected = [e for e in console_errors() if "422" not in e["message"]]
    assert not expected, expected
    return shown[:80]


def check_jobs():
    """A small job is submitted from the page and watched until done."""
    load("jobs")
    set_value("#job-code", "0.6")
    set_value("#job-max", 20000)
    q("#job-submit").click()
    wait(lambda: qs("#job-list li.job"), 30, "the submitted job in the list")
    li = qs("#job-list li.job")[0]
    job_id = li.get_attribute("data-id")
    wait(lambda: qs(f'#job-list li.job[data-id="{job_id}"][data-status="done"]'), 180, "the job to finish")
    li = q(f'#job-list li.job[data-id="{job_id}"]')
    bar = li.find_element(By.CSS_SELECTOR, "progress")
    assert float(bar.get_attribute("value")) == float(bar.get_attribute("max")) or "proved" in li.text or "periodic" in li.text, li.text
    live = li.get_attribute("data-live")
    doc = api_json("GET", f"/v1/octal/jobs/{job_id}")
    assert doc["status"] == "done", doc
    # A job that is still queued or running can be cancelled from the page.
    set_value("#job-code", "0.6")
    set_value("#job-max", 150000000)
    q("#job-submit").click()
    wait(lambda: len(qs("#job-list li.job")) >= 2, 30, "the second job")
    second = qs("#job-list li.job")[0]
    second_id = second.get_attribute("data-id")
    assert second_id != job_id
    second.find_element(By.XPATH, ".//button[starts-with(normalize-space(.), 'Cancel')]").click()
    wait(lambda: qs(f'#job-list li.job[data-id="{second_id}"][data-status="cancelled"]'), 120, "the cancelled job")
    full_shot("09-jobs")
    return f"job done (followed by {live}); a second one cancelled"


def check_census():
    """A small census is started from the page; its rows are shown live until done."""
    load("census")
    set_value("#census-codes", "0.07\n0.6")
    set_value("#census-max", 4096)
    q("#census-start").click()
    wait(lambda: len(qs("#census-body tr")) == 2, 30, "the census rows")
    wait(lambda: q("#census-table").get_attribute("data-status") == "done", 180, "the census to finish")
    rows = qs("#census-body tr")
    assert [r.get_attribute("data-code") for r in rows] == ["0.07", "0.6"], [r.text for r in rows]
    assert rows[0].get_attribute("data-verdict") == "verified", rows[0].text
    assert "periodic (verified)" in rows[0].text, rows[0].text
    assert "no periodicity proved in G(0..4096)" in rows[1].text, rows[1].text
    assert "Czajka" in rows[1].text, "the published statistics of 0.6 beside"
    census_id = q("#census-table").get_attribute("data-id")
    doc = api_json("GET", f"/v1/octal/census/{census_id}")
    assert doc["status"] == "done", doc
    assert doc["games"][1]["statistics"]["n"] == 4096, doc
    wait(lambda: qs(f'#census-list li[data-id="{census_id}"]'), 30, "the census in the list")
    painted = D.execute_script(
        "const c = document.querySelector('#census-body tr:nth-child(2) canvas');"
        "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        "let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n += 1; return n;")
    assert painted > 50, f"the histogram of 0.6 is drawn ({painted} pixels)"
    full_shot("11-census")
    return f"census {census_id}: 0.07 verified, 0.6 to 4096"


def check_jobs_with_a_key():
    """A server with API keys: the page asks for a key, says how to get one, and works with it."""
    base, key = os.environ["KEYED_BASE"].rstrip("/"), os.environ["KEYED_KEY"]
    D.get(f"{base}/#jobs")
    wait(lambda: D.execute_script("return document.body.dataset.ready === 'true'"), what="the page script")
    wait(lambda: q("#jobs-key").is_displayed(), 30, "the key box")
    wait(lambda: "needs an API key" in text("#jobs-key-why"), 30, "the reason for the key box")
    assert "grundy keys new" in text("#jobs-key"), "the page says how to get a key"
    assert not qs("#job-list li.job"), "no jobs are listed without a key"
    set_value("#jobs-key-input", key + "x")
    q("#jobs-key-use").click()
    wait(lambda: "refused" in text("#jobs-key-why"), 30, "a wrong key refused")
    set_value("#jobs-key-input", key)
    q("#jobs-key-use").click()
    wait(lambda: "browser" in text("#jobs-owner"), 30, "whose jobs are listed")
    stored = D.execute_script("return [sessionStorage.getItem('grundy-api-key'), localStorage.getItem('grundy-api-key')]")
    assert stored == [key, None], "the key is kept for the tab only (sessionStorage)"
    assert key not in D.current_url and key not in D.page_source, "the key is not shown in the page"
    set_value("#job-code", "0.07")
    set_value("#job-max", 20000)
    q("#job-submit").click()
    wait(lambda: qs("#job-list li.job"), 30, "the submitted job")
    job_id = qs("#job-list li.job")[0].get_attribute("data-id")
    wait(lambda: qs(f'#job-list li.job[data-id="{job_id}"][data-status="done"]'), 180, "the job to finish")
    live = q(f'#job-list li.job[data-id="{job_id}"]').get_attribute("data-live")
    full_shot("10-jobs-with-a-key")
    q("#jobs-key-forget").click()
    wait(lambda: "needs an API key" in text("#jobs-key-why"), 30, "the key box again after forgetting the key")
    assert D.execute_script("return sessionStorage.getItem('grundy-api-key')") is None
    # The browser logs each refused request (401) as an error; nothing else may be there.
    others = [e for e in console_errors() if " 401 " not in e["message"] and "(Unauthorized)" not in e["message"]]
    assert not others, "console errors: " + "; ".join(e["message"] for e in others)
    D.get(f"{BASE}/#play")
    return f"asked for a key, refused a wrong one, job done with the key (followed by {live})"


def check_docs():
    """Swagger UI still works under the security headers (no CSP violation in the console)."""
    D.get(f"{BASE}/docs/")
    wait(lambda: qs(".swagger-ui .info .title"), 60, "Swagger UI")
    wait(lambda: qs(".swagger-ui .opblock"), 60, "the operations")
    shot("10-docs")


def check_phone():
    """Phone width: nothing scrolls sideways; the board, the plot, the jobs and the census fit."""
    D.set_window_size(*PHONE)
    try:
        load("play")
        start_game("welter", "normal", position=[1, 3, 7, 8, 11, 19])
        wait_turn()
        overflow = D.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the play page scrolls sideways by {overflow}px at phone width"
        full_shot("11-phone-play")
        load("explore")
        set_value("#ex-code", "0.07")
        set_value("#ex-n", 2000)
        q("#ex-plot").click()
        wait(lambda: q("#ex-result").get_attribute("data-ready") == "true", 60, "the plot")
        overflow = D.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the explorer scrolls sideways by {overflow}px at phone width"
        full_shot("12-phone-explorer")
        load("jobs")
        wait(lambda: qs("#job-list li.job"), 30, "the job list")
        overflow = D.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the jobs page scrolls sideways by {overflow}px at phone width"
        full_shot("13-phone-jobs")
        load("census")
        wait(lambda: qs("#census-list li.job"), 30, "the census list")
        qs("#census-list li.job button")[0].click()
        wait(lambda: qs("#census-body tr"), 30, "the census table")
        overflow = D.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the census page scrolls sideways by {overflow}px at phone width (its table scrolls in its box)"
        full_shot("14-phone-census")
    finally:
        D.set_window_size(*DESKTOP)


CHECKS = [
    ("page loads with its headers and accessible names", check_page_loads),
    ("Welter, normal play: winning moves win", check_welter_win),
    ("Welter, misère from a P-position: the engine wins", check_welter_misere_loss),
    ("octal heaps 0.07: winning moves win", check_octal_heaps),
    ("octal heaps 0.07, misère: winning moves win", check_octal_misere),
    ("Max-Welter: winning moves win", check_max_welter),
    ("explorer: 0.07 to 10^6, period 34 and preperiod marked", check_explorer),
    ("explorer: misère quotient of 0.123 (|Q| 20, |P| 5)", check_misere_quotient),
    ("markup in a code is shown as text", check_injected_markup_is_text),
    ("jobs: submit, watch to done, cancel", check_jobs),
    ("census: start a small one, rows shown live until done", check_census),
    *([("jobs on a server with API keys: ask, refuse, use, forget", check_jobs_with_a_key)]
      if os.environ.get("KEYED_BASE") else []),
    ("/docs works under the headers", check_docs),
    ("phone width", check_phone),
]

passed = failed = 0
try:
    for name, fn in CHECKS:
        t0 = time.monotonic()
        try:
            note = fn()
            errors = console_errors()
            assert not errors, "console errors: " + "; ".join(e["message"] for e in errors)
            passed += 1
            print(f"ok   {name} ({time.monotonic() - t0:.1f} s){': ' + note if note else ''}", flush=True)
        except Exception as exc:  # one failing check must not hide the others
            failed += 1
            print(f"FAIL {name}: {exc}", flush=True)
            traceback.print_exc()
            try:
                shot("FAIL-" + fn.__name__)
                console_errors()
            except Exception:
                pass
finally:
    D.quit()

print(f"screenshots in {SHOTS}")
print(f"browser: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
