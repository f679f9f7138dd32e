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
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

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
        # A live view redraws its rows: an element found a moment ago may be gone (asked again).
        return WebDriverWait(D, timeout, poll_frequency=0.1,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: cond())
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


def open_address(fragment, base=None):
    """Opens BASE/{fragment} as a new document, as a link from elsewhere or a bookmark does (not a
    fragment change within the page already open)."""
    D.get("about:blank")
    D.get(f"{(base or BASE)}/{fragment}")
    wait(lambda: D.execute_script("return document.body.dataset.ready === 'true'"), what="the page script")


def here():
    """The address shown (the URL fragment)."""
    return D.execute_script("return location.hash")


def refusals_only(statuses, what):
    """Drains the console, which may hold only the browser's own notes of refused requests
    (status in `statuses`): a script error fails."""
    errors = console_errors()
    bad = [e for e in errors
           if "Failed to load resource" not in e["message"]
           or not any(f"status of {st}" in e["message"] for st in statuses)]
    assert not bad, f"{what}: console errors " + "; ".join(e["message"] for e in bad)
    return len(errors)


def inked(css):
    """Pixels drawn on a canvas."""
    return D.execute_script(
        "const c = document.querySelector(arguments[0]);"
        "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        "let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n += 1; return n;", css)


def broken_words(scope="main"):
    """Words broken across two lines in what is shown under `scope`: every run of two or more
    letters of a visible text node (code, `.mono`, is allowed to break anywhere and left out)
    whose range spans more than one line. [] when none."""
    return D.execute_script("""
        const out = [];
        const walker = document.createTreeWalker(document.querySelector(arguments[0]), NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const host = n.parentElement;
          if (!host || host.closest('.mono, code, pre, script, style, canvas, [hidden], select, option, textarea')) continue;
          if (!host.getClientRects().length) continue; // not shown
          for (const m of n.data.matchAll(/[A-Za-z]{2,}/g)) {
            const r = document.createRange();
            r.setStart(n, m.index);
            r.setEnd(n, m.index + m[0].length);
            const tops = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
            if (tops.size > 1) out.push(`${m[0]} in "${n.data.slice(0, 80)}"`);
          }
        }
        return out;""", scope)


def assert_no_broken_words(where):
    bad = broken_words()
    assert not bad, f"{where}: words broken mid-word: {bad[:5]}"


STATE = {}  # ids made by earlier checks for the later ones


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


def check_misere_quotient_job():
    """A quotient beyond the synchronous budget (0.26 to heap 50: the budget problem) — the
    explorer's quotient panel offers a job; started, it is followed (heap, |Q|, |P|, a link to the
    job) and the quotient is shown once the job is done (|Q| 288, |P| 67, what the API answers).
    The Jobs page lists it as a misère quotient, done, and cancels another one that runs."""
    open_address("#explore?code=0.26&n=100&misere=50")
    wait(lambda: qs("#ex-mq-job"), 120, "the budget problem and the offer of a job")
    assert "step budget" in text("#ex-mq-error"), text("#ex-mq-error")
    refusals_only([422], "the budget problem")
    q("#ex-mq-job").click()
    wait(lambda: qs("#ex-mq-job-link"), 30, "the link to the job")
    job_id = q("#ex-mq-job-link").get_attribute("href").rsplit("/", 1)[1]
    wait(lambda: qs("#ex-mq-job-status") and "heap" in text("#ex-mq-job-status"), 30, "the job's progress")
    shot("08c-explorer-misere-quotient-job")
    wait(lambda: qs("#ex-mq-q"), 300, "the quotient computed by the job")
    doc = api_json("GET", f"/v1/octal/jobs/{job_id}")
    assert (doc["kind"], doc["status"], doc["max_heap"]) == ("misere_quotient", "done", 50), doc
    truth = api_json("GET", "/v1/octal/misere/quotient?code=0.26&max_heap=50")
    assert (truth["q_size"], truth["p_size"]) == (288, 67), truth
    assert (text("#ex-mq-q"), text("#ex-mq-p")) == ("288", "67"), (text("#ex-mq-q"), text("#ex-mq-p"))
    assert len(qs("#ex-mq-phi tbody tr")) == 51
    load("jobs")
    card = f'#job-list li.job[data-id="{job_id}"][data-kind="misere_quotient"]'
    wait(lambda: qs(card + '[data-status="done"]'), 30, "the quotient job listed, done")
    assert "misère quotient Q_50" in q(card).text and "|Q| = 288" in q(card).text, q(card).text
    # Another one, cancelled from the page while it runs.
    other = json.loads(api("POST", "/v1/octal/misere/quotient", {"code": "0.26", "max_heap": 66, "async": True})[2])
    q("#jobs-refresh").click()
    card = f'#job-list li.job[data-id="{other["id"]}"]'
    wait(lambda: qs(card), 30, "the second quotient job listed")
    q(card).find_element(By.XPATH, ".//button[starts-with(normalize-space(.), 'Cancel')]").click()
    wait(lambda: qs(card + '[data-status="cancelled"]'), 60, "the quotient job cancelled")
    full_shot("09b-jobs-misere-quotient")
    return f"job {job_id} done: |Q| 288, |P| 67; another cancelled"


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
    # README's picture (docs/img/pages.png): the explorer with the preperiod and a period marked.
    size = D.get_window_size()
    D.set_window_size(1280, 1250)
    D.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.3)
    shot("00-readme-pages")
    D.set_window_size(size["width"], size["height"])
    # One meaning of "rare" across the pages: the tables' rare mask (Jobs, Census). The
    # explorer's under-5 % frequency view is "uncommon values".
    explore_text = q("#explore").text
    assert "Uncommon values" in explore_text, "the explorer's frequency view is named uncommon values"
    assert "rare" not in explore_text.lower(), "the explorer says rare for what is not the tables' rare mask"
    assert "rare" not in text("#ex-caption").lower(), text("#ex-caption")
    assert_no_broken_words("the explorer at 1280 px")
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
    # The list may hold jobs of earlier checks (the explorer's quotient jobs): a submitted job is
    # the one whose id was not there before.
    def new_jobs(before):
        return [li for li in qs("#job-list li.job") if li.get_attribute("data-id") not in before]

    before = {li.get_attribute("data-id") for li in qs("#job-list li.job")}
    set_value("#job-code", "0.6")
    set_value("#job-max", 20000)
    q("#job-submit").click()
    wait(lambda: new_jobs(before), 30, "the submitted job in the list")
    job_id = new_jobs(before)[0].get_attribute("data-id")
    wait(lambda: qs(f'#job-list li.job[data-id="{job_id}"][data-status="done"]'), 180, "the job to finish")
    li = q(f'#job-list li.job[data-id="{job_id}"]')
    bar = li.find_element(By.CSS_SELECTOR, "progress")
    assert float(bar.get_attribute("value")) == float(bar.get_attribute("max")) or "proved" in li.text or "periodic" in li.text, li.text
    live = li.get_attribute("data-live")
    doc = api_json("GET", f"/v1/octal/jobs/{job_id}")
    assert doc["status"] == "done", doc
    # A job that is still queued or running can be cancelled from the page.
    before = {li.get_attribute("data-id") for li in qs("#job-list li.job")}
    set_value("#job-code", "0.6")
    set_value("#job-max", 150000000)
    q("#job-submit").click()
    wait(lambda: new_jobs(before), 30, "the second job")
    second = new_jobs(before)[0]
    second_id = second.get_attribute("data-id")
    assert second_id != job_id
    second.find_element(By.XPATH, ".//button[starts-with(normalize-space(.), 'Cancel')]").click()
    wait(lambda: qs(f'#job-list li.job[data-id="{second_id}"][data-status="cancelled"]'), 120, "the cancelled job")
    full_shot("09-jobs")
    STATE["job"] = job_id
    return f"job done (followed by {live}); a second one cancelled"


def check_census():
    """A small census is started from the page; its rows are shown live until done."""
    load("census")
    set_value("#census-codes", "0.07\n0.6")
    set_value("#census-max", 4096)
    q("#census-start").click()
    wait(lambda: len(qs("#census-body tr")) == 2, 30, "the census rows")
    started = q("#census-table").get_attribute("data-id")
    assert here() == f"#census/{started}", f"the address of the census started: {here()}"
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
    STATE["census"] = census_id
    return f"census {census_id}: 0.07 verified, 0.6 to 4096"


def census_list_item(census_id, games, done, status):
    """The census's line in the list says its status, games done of all and its date."""
    css = f'#census-list li[data-id="{census_id}"]'
    wait(lambda: qs(css) and q(css).get_attribute("data-status") == status, 30, f"the census listed, {status}")
    li = q(css)
    assert (li.get_attribute("data-done"), li.get_attribute("data-games")) == (str(done), str(games)), li.text
    assert f"{done:,} of {games:,} game" in li.text and status in li.text, li.text
    stamp = li.find_element(By.CSS_SELECTOR, "time")
    listed = api_json("GET", "/v1/octal/census")
    mine = next(c for c in listed["censuses"] if c["id"] == census_id)
    assert (mine["status"], mine["games_done"], mine["games"]) == (status, done, games), mine
    ms = D.execute_script("return Date.parse(arguments[0].getAttribute('datetime'))", stamp)
    assert ms == mine["created_at_ms"], (ms, mine["created_at_ms"])
    assert stamp.text.strip(), "the date is written out"
    return li.text


def check_census_published_at_same_n():
    """The Published column compares at the same n: a run to exactly Czajka's n (0.04 to 2^17)
    and one past it (0.06 to 140,000: its own figures at 2^17, read from its statistics) are
    compared figure by figure; a run to another n (0.6 to 4,096, the census check's) says at
    which n the published figures were taken. The list says each census's status, games done
    of all and date."""
    assert STATE.get("census"), "the census check ran first"
    open_address(f"#census/{STATE['census']}")
    wait(lambda: q("#census-table").get_attribute("data-id") == STATE["census"], 30, "the earlier census")
    cell = q('#census-body tr[data-code="0.6"] td[data-compare]')
    assert cell.get_attribute("data-compare") == "other-n", cell.text
    assert "Czajka, at n = 2,097,152 (this run: n = 4,096)" in cell.text, cell.text
    census_list_item(STATE["census"], 2, 2, "done")
    load("census")
    set_value("#census-codes", "0.04, 0.06")
    set_value("#census-max", 140000)
    q("#census-start").click()
    wait(lambda: len(qs("#census-body tr")) == 2, 30, "the census rows")
    cid = q("#census-table").get_attribute("data-id")
    wait(lambda: q("#census-table").get_attribute("data-status") == "done", 240, "the census to finish")
    doc = api_json("GET", f"/v1/octal/census/{cid}")
    for g in doc["games"]:
        pub = g["published"]["statistics"]
        assert pub["n"] == 1 << 17, pub
        stats = api_json("GET", f"/v1/octal/jobs/{g['job_id']}/statistics")
        at = next(r for r in stats["powers_of_two"] if r["n"] == pub["n"])
        same = all(at[k] == pub[k] for k in ("max_value", "max_value_first_heap", "rare_mask", "rare_count", "last_rare_heap"))
        css = f'#census-body tr[data-code="{g["code"]}"] td[data-compare]'
        wait(lambda: q(css).get_attribute("data-compare") in ("same", "differs"), 30, f"{g['code']} compared at n = 131,072")
        cell = q(css)
        want = "same" if same else "differs"
        assert cell.get_attribute("data-compare") == want, (cell.text, at, pub)
        assert "Czajka, at the same n = 131,072" in cell.text, cell.text
        assert ("this run agrees" if same else "this run differs") in cell.text, cell.text
    line = census_list_item(cid, 2, 2, "done")
    full_shot("11b-census-published-same-n")
    return f"0.04 and 0.06 compared at n = 131,072; 0.6 at 4,096 says 2,097,152; listed: {line!r}"


def jobs_page_ids():
    return [li.get_attribute("data-id") for li in qs("#job-list li.job")]


def api_all_jobs(query=""):
    """Every job the API lists for `query`, newest first (its own pages), and its total."""
    ids, cursor, total = [], "", None
    while True:
        page = api_json("GET", f"/v1/octal/jobs?limit=1000&{query}&cursor={cursor}")
        total = page["total"]
        ids += [j["id"] for j in page["jobs"]]
        if not page["next_cursor"]:
            return ids, total
        cursor = page["next_cursor"]


def check_jobs_paging_and_filters():
    """The Jobs page pages through every job, 50 at a time, with the true count (more than 50
    here: 55 small jobs are added), and filters by status and by kind — the filters kept in the
    address (#jobs?status=…&kind=…), opened directly too; every page and filter holds what the
    API lists for it."""
    for i in range(55):
        api("POST", "/v1/octal/jobs", {"code": "0.07", "max_n": 10 + i})
    # A misère-quotient job of its own (cancelled at once), for the kind filter.
    mq = api_json("POST", "/v1/octal/misere/quotient", {"code": "0.26", "max_heap": 66, "async": True})
    api("DELETE", f"/v1/octal/jobs/{mq['id']}")
    # Every job final first, so that no count moves while the page is compared with the API.
    wait(lambda: all(api_json("GET", f"/v1/octal/jobs?limit=1&status={st}")["total"] == 0
                     for st in ("queued", "running")), 180, "the small jobs to finish")
    all_ids, total = api_all_jobs()
    assert total == len(all_ids) and total > 55, (total, len(all_ids))
    load("jobs")
    wait(lambda: q("#job-list").get_attribute("data-total") == str(total)
         and f"{total:,} jobs" in text("#jobs-status"), 30, f"the count of {total} jobs")
    assert "showing 1–50" in text("#jobs-status"), text("#jobs-status")
    assert q("#jobs-pager").is_displayed() and q("#jobs-older").get_attribute("disabled") is None
    assert q("#jobs-newer").get_attribute("disabled") is not None, "no newer page than the first"
    seen = []
    pages = 0
    while True:
        pages += 1
        wait(lambda: q("#job-list").get_attribute("data-page") == str(pages), 30, f"page {pages}")
        ids = jobs_page_ids()
        assert len(ids) == min(50, total - 50 * (pages - 1)), (pages, len(ids))
        assert ids == all_ids[50 * (pages - 1): 50 * pages], f"page {pages} is the API's"
        first = 50 * (pages - 1) + 1
        assert f"showing {first:,}–{first + len(ids) - 1:,}" in text("#jobs-status"), text("#jobs-status")
        seen += ids
        if q("#jobs-older").get_attribute("disabled") is not None:
            break
        q("#jobs-older").click()
    assert seen == all_ids and len(seen) == total, (len(seen), total)
    assert pages == (total + 49) // 50
    # The page number is in the address: a reload (a link, a bookmark) shows the same page.
    assert here() == f"#jobs?page={pages}", here()
    shot("09c-jobs-last-page")
    open_address(f"#jobs?page={pages}")
    wait(lambda: q("#job-list").get_attribute("data-page") == str(pages), 30, f"page {pages} restored on load")
    assert jobs_page_ids() == all_ids[50 * (pages - 1): 50 * pages], "the restored page is the API's"
    assert q("#jobs-newer").get_attribute("disabled") is None, "a newer page than the restored one"
    q("#jobs-newer").click()
    wait(lambda: q("#job-list").get_attribute("data-page") == str(pages - 1), 30, "the page before")
    assert here() == ("#jobs" if pages == 2 else f"#jobs?page={pages - 1}"), here()
    D.back()
    wait(lambda: q("#job-list").get_attribute("data-page") == str(pages), 30, "back: the last page again")
    # A page past the end: the last one, and the address says so.
    open_address("#jobs?page=999")
    wait(lambda: q("#job-list").get_attribute("data-page") == str(pages) and here() == f"#jobs?page={pages}", 30,
         "a page past the end shows the last one")
    q("#jobs-newer").click()
    wait(lambda: q("#job-list").get_attribute("data-page") == str(pages - 1), 30, "the page before")
    # Filters: status, then kind; the address follows; the count is the filter's.
    for status, kind in (("cancelled", ""), ("done", "sequence"), ("", "misere_quotient")):
        Select(q("#jobs-filter-status")).select_by_value(status)
        Select(q("#jobs-filter-kind")).select_by_value(kind)
        query = "&".join(f"{k}={v}" for k, v in (("status", status), ("kind", kind)) if v)
        want_ids, want_total = api_all_jobs(query)
        assert want_total > 0, f"{query}: the earlier checks left such jobs"
        wait(lambda: here() == f"#jobs?{query}" and q("#job-list").get_attribute("data-total") == str(want_total)
             and q("#job-list").get_attribute("data-page") == "1", 30, f"the list of {query}")
        cards = qs("#job-list li.job")
        assert [c.get_attribute("data-id") for c in cards] == want_ids[:50], query
        assert all(not status or c.get_attribute("data-status") == status for c in cards), query
        assert all(not kind or c.get_attribute("data-kind") == kind for c in cards), query
        assert f"{want_total:,} {status + ' ' if status else ''}" in text("#jobs-status"), text("#jobs-status")
    shot("09d-jobs-filtered")
    # Opened directly: the filters from the address.
    open_address("#jobs?status=done&kind=sequence")
    _, done_total = api_all_jobs("status=done&kind=sequence")
    wait(lambda: q("#job-list").get_attribute("data-total") == str(done_total), 30, "the filtered list opened directly")
    assert Select(q("#jobs-filter-status")).first_selected_option.get_attribute("value") == "done"
    assert Select(q("#jobs-filter-kind")).first_selected_option.get_attribute("value") == "sequence"
    assert "done octal-sequence jobs" in text("#jobs-status"), text("#jobs-status")
    # A filter the page does not know: every job, said so.
    open_address("#jobs?status=finished")
    wait(lambda: "No such filter" in text("#jobs-status") and q("#job-list").get_attribute("data-total") == str(total), 30, "an unknown filter said")
    load("jobs")
    return f"{total} jobs on {pages} pages; cancelled, done sequence and misère-quotient filters"


def check_explore_addresses():
    """#explore?code=…&n=…&misere=… opened directly plots and computes with no click; the forms
    rewrite the address; back and forward walk through what was viewed; examples are links;
    plain #explore is the empty form; bad parameters are said in the page."""
    canon = api_json("POST", "/v1/octal/sequence", {"code": "0.137", "n": 1})["code"]
    q137 = api_json("POST", "/v1/octal/misere/quotient", {"code": "0.137", "max_heap": 20})
    q07 = api_json("POST", "/v1/octal/misere/quotient", {"code": "0.07", "max_heap": 12})

    def plotted(code, end):
        return (q("#ex-result").get_attribute("data-ready") == "true" and q("#ex-result").is_displayed()
                and q("#ex-canvas").get_attribute("data-end") == str(end) and text("#ex-canonical") == code)

    open_address("#explore?code=0.137&n=5000&misere=20")
    wait(lambda: plotted(canon, 5000), 60, "0.137 to 5000 plotted by its address")
    assert q("#ex-code").get_attribute("value") == "0.137" and q("#ex-n").get_attribute("value") == "5000"
    assert inked("#ex-canvas") > 500, "the plot opened by its address is drawn"
    wait(lambda: qs("#ex-mq-q"), 60, "the misère quotient opened by its address")
    assert (text("#ex-mq-q"), text("#ex-mq-p")) == (str(q137["q_size"]), str(q137["p_size"])), text("#ex-mq-q")
    assert q("#ex-mq-n").get_attribute("value") == "20"
    assert "0.137" in D.title, D.title
    assert q('nav a[data-page="explore"]').get_attribute("aria-current") == "page"
    full_shot("15-address-explore-0.137")
    # The form rewrites the address (a new code leaves the other code's quotient behind) ...
    set_value("#ex-code", "0.07")
    set_value("#ex-n", 2000)
    q("#ex-plot").click()
    wait(lambda: here() == "#explore?code=0.07&n=2000", 10, "the address of the new plot")
    wait(lambda: plotted("0.07", 2000), 60, "0.07 plotted")
    assert not qs("#ex-mq-q"), "the quotient of 0.137 is not shown beside 0.07"
    # ... and so does the quotient's form.
    set_value("#ex-mq-n", 12)
    q("#ex-mq-go").click()
    wait(lambda: here() == "#explore?code=0.07&n=2000&misere=12", 10, "the address with the quotient")
    wait(lambda: qs("#ex-mq-q") and text("#ex-mq-q") == str(q07["q_size"]), 60, "the quotient of 0.07")
    # The back button walks through what was viewed, and forward again.
    D.back()
    wait(lambda: here() == "#explore?code=0.07&n=2000" and not qs("#ex-mq-q"), 20, "back: 0.07 without its quotient")
    assert plotted("0.07", 2000)
    D.back()
    wait(lambda: here() == "#explore?code=0.137&n=5000&misere=20", 20, "back to the first address")
    wait(lambda: plotted(canon, 5000), 60, "back: 0.137 to 5000 plotted again")
    wait(lambda: qs("#ex-mq-q") and text("#ex-mq-q") == str(q137["q_size"]), 60, "back: the quotient of 0.137")
    D.forward()
    wait(lambda: here() == "#explore?code=0.07&n=2000" and plotted("0.07", 2000), 60, "forward: 0.07 again")
    # The examples are links to their addresses; the menu's link leads back to the plot shown.
    lasker = api_json("POST", "/v1/octal/sequence", {"code": "4.(3)", "n": 1})["code"]
    q('.examples a[href="#explore?code=4.(3)&n=500"]').click()
    wait(lambda: here() == "#explore?code=4.(3)&n=500" and plotted(lasker, 500), 60, "the example 4.(3) by its link")
    assert q('nav a[data-page="explore"]').get_attribute("href").endswith("#explore?code=4.(3)&n=500")
    # Plain #explore: the empty form, as before.
    open_address("#explore")
    wait(lambda: q("#explore").is_displayed(), what="the explorer")
    assert not q("#ex-result").is_displayed() and not q("#ex-error").is_displayed()
    assert (q("#ex-code").get_attribute("value"), q("#ex-n").get_attribute("value")) == ("0.07", "1000")
    assert not console_errors()
    # Bad parameters: a message in the page, no request, no script error.
    open_address("#explore?code=0.07&n=abc")
    wait(lambda: q("#ex-error").is_displayed(), 10, "the message for n=abc")
    assert "abc" in text("#ex-error") and "whole number" in text("#ex-error"), text("#ex-error")
    assert not q("#ex-result").is_displayed()
    assert not console_errors(), "n=abc: no console error"
    open_address("#explore?code=0.07&n=30&misere=x")
    wait(lambda: q("#ex-mq-error").is_displayed(), 10, "the message for misere=x")
    assert "misere" in text("#ex-mq-error") and "“x”" in text("#ex-mq-error"), text("#ex-mq-error")
    wait(lambda: plotted("0.07", 30), 60, "0.07 to 30 plotted beside the bad misere")
    assert not console_errors(), "misere=x: no console error"
    open_address("#explore?n=5")
    wait(lambda: q("#ex-error").is_displayed(), 10, "the message for an address without a code")
    assert "no game" in text("#ex-error"), text("#ex-error")
    open_address("#explore?code=0.9Z&n=100")
    wait(lambda: q("#ex-error").is_displayed(), 30, "the server's refusal of the code 0.9Z")
    assert "0.9Z" in text("#ex-error") and not q("#ex-result").is_displayed(), text("#ex-error")
    assert q("#explore").is_displayed()
    shot("16-address-explore-bad-code")
    refusals_only([422], "an unknown code")
    return f"0.137: |Q| {q137['q_size']}; 0.07 n=abc, misere=x, 0.9Z: {text('#ex-error')[:60]}"


def check_job_addresses():
    """#jobs/{id} opened directly shows that job (progress, verdict, statistics, Plot), live while
    it runs; the list links each job; a deleted job's address says so."""
    job_id = STATE["job"]
    stats = api_json("GET", f"/v1/octal/jobs/{job_id}/statistics")["current"]
    card = f'#job-detail-card article.job[data-id="{job_id}"]'
    open_address(f"#jobs/{job_id}")
    wait(lambda: qs(card + '[data-status="done"]'), 30, "the job opened by its address")
    assert not q("#job-list").is_displayed(), "the job alone, not the list"
    wait(lambda: qs("#job-stats-n"), 30, "the job's statistics")
    assert text("#job-stats-n") == f"{stats['n']:,}", (text("#job-stats-n"), stats["n"])
    assert text("#job-stats-mask") == stats["rare_mask"], text("#job-stats-mask")
    assert text("#job-stats-rare") == f"{stats['rare_count']:,}", text("#job-stats-rare")
    assert inked("#job-stats canvas") > 50, "the job's histogram is drawn"
    assert_histogram_axes()
    # 0.6 to 20,000 is done without a proof: the verdict says how far no period was found.
    doc = api_json("GET", f"/v1/octal/jobs/{job_id}")
    if doc["periodicity"]["status"] == "unknown":
        want = f"no period up to {doc['progress']['computed']:,}"
        assert want in q(card).text, (want, q(card).text)
        assert "not proved (yet)" not in q(card).text, q(card).text
    assert job_id in D.title, D.title
    assert_no_broken_words("a job's address at 1280 px")
    full_shot("17-address-job")
    # Plot: the explorer's address of the job's values; back returns to the job.
    q(card).find_element(By.XPATH, ".//button[normalize-space(.)='Plot']").click()
    wait(lambda: here() == "#explore?code=0.6&n=20000", 10, "the job's plot address")
    wait(lambda: q("#ex-result").get_attribute("data-ready") == "true"
         and q("#ex-canvas").get_attribute("data-end") == "20000", 60, "the job's values plotted")
    D.back()
    wait(lambda: here() == f"#jobs/{job_id}" and qs(card + '[data-status="done"]') and q(card).is_displayed(), 30,
         "back to the job")
    # The list shows each job as a link to its address.
    q("#job-detail-back").click()
    wait(lambda: here() == "#jobs" and q("#job-list").is_displayed(), 10, "the list")
    wait(lambda: qs(f'#job-list a[href="#jobs/{job_id}"]'), 30, "the job's link in the list")
    q(f'#job-list a[href="#jobs/{job_id}"]').click()
    wait(lambda: here() == f"#jobs/{job_id}" and qs(card), 30, "the job by its link")
    # A running job's address is live: progress and statistics come without a click.
    rid = api_json("POST", "/v1/octal/jobs", {"code": "0.6", "max_n": 150000000})["id"]
    rcard = f'#job-detail-card article.job[data-id="{rid}"]'
    open_address(f"#jobs/{rid}")
    wait(lambda: qs(rcard), 30, "the running job opened by its address")

    def progress():
        return float(q(rcard + " progress").get_attribute("value"))

    wait(lambda: progress() > 0, 60, "the running job's progress")
    first = progress()
    wait(lambda: progress() > first, 60, "the progress to move on by itself")
    wait(lambda: qs("#job-stats-n") and int(text("#job-stats-n").replace(",", "")) > 0, 60, "its statistics")
    shot("18-address-job-running")
    # Cancel and delete from the job's own view; its address then says the job is gone.
    q(rcard).find_element(By.XPATH, ".//button[normalize-space(.)='Cancel']").click()
    wait(lambda: qs(rcard + '[data-status="cancelled"]'), 60, "the job cancelled")
    q(rcard).find_element(By.XPATH, ".//button[normalize-space(.)='Delete']").click()
    wait(lambda: here() == "#jobs" and "deleted" in text("#jobs-status"), 30, "back at the list, the job deleted")
    open_address(f"#jobs/{rid}")
    wait(lambda: q("#jobs-error").is_displayed(), 30, "the deleted job's address")
    assert "No job" in text("#jobs-error") and "deleted" in text("#jobs-error") and rid in text("#jobs-error"), text("#jobs-error")
    assert not qs("#job-detail-card article") and not q("#job-list").is_displayed()
    shot("19-address-job-deleted")
    refusals_only([404], "a deleted job's address")
    return f"job {job_id[:8]}: statistics n {stats['n']:,}; running job followed, cancelled, deleted"


def assert_histogram_axes():
    """The job's histogram has axes with labels: ink in the margins left of and under the bars
    (tick labels), a caption naming what it counts, and a description for screen readers."""
    c = q("#job-histogram")
    assert c.size["height"] >= 100, f"the histogram is too low for axes: {c.size}"
    ink = D.execute_script("""
        const c = document.getElementById('job-histogram'), dpr = window.devicePixelRatio || 1;
        const ctx = c.getContext('2d');
        const count = (x, y, w, h) => { const d = ctx.getImageData(x, y, w, h).data; let n = 0;
          for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n += 1; return n; };
        return {left: count(0, 0, Math.round(46 * dpr), c.height - Math.round(30 * dpr)),
                bottom: count(Math.round(52 * dpr), c.height - Math.round(28 * dpr), c.width - Math.round(52 * dpr), Math.round(28 * dpr))};""")
    assert ink["left"] > 30 and ink["bottom"] > 30, f"the histogram's axes and labels are not drawn: {ink}"
    caption = text("#job-histogram-caption")
    assert "heaps" in caption and "value" in caption and "log scale" in caption, caption
    assert "log scale" in c.get_attribute("aria-label"), c.get_attribute("aria-label")


def check_job_ended_by_a_proof():
    """A job ended early by a proof is done with a full bar: "done — proved periodic at heap N",
    not "N of max_n values" with part of a bar; its verdict names the period."""
    job = api_json("POST", "/v1/octal/jobs", {"code": "0.07", "max_n": 3146})
    job_id = job["id"]
    wait(lambda: api_json("GET", f"/v1/octal/jobs/{job_id}")["status"] == "done", 120, "the 0.07 job")
    doc = api_json("GET", f"/v1/octal/jobs/{job_id}")
    computed = doc["progress"]["computed"]
    assert doc["periodicity"]["status"] == "periodic" and computed < 3146, doc
    card = f'#job-detail-card article.job[data-id="{job_id}"]'
    open_address(f"#jobs/{job_id}")
    wait(lambda: qs(card + '[data-status="done"]'), 30, "the job by its address")
    bar = q(card + " progress")
    assert float(bar.get_attribute("value")) == float(bar.get_attribute("max")) == 3146, "a full bar"
    label = q(card + " label").text
    assert label == f"done — proved periodic at heap {computed:,}", label
    assert "of 3,146 values" not in q(card).text, q(card).text
    assert "period 34" in q(card).text, q(card).text
    # In the list too.
    load("jobs")
    wait(lambda: qs(f'#job-list li.job[data-id="{job_id}"]'), 30, "the job in the list")
    li = q(f'#job-list li.job[data-id="{job_id}"]')
    assert li.find_element(By.CSS_SELECTOR, "label").text == label, li.text
    shot("17b-job-proved")
    return label


def census_row_n(code):
    """The n shown in a game's row (-1 for none); read in one step, as the rows are redrawn live."""
    t = D.execute_script(
        "const r = [...document.querySelectorAll('#census-body tr')].find(r => r.dataset.code === arguments[0]);"
        "return r ? r.querySelectorAll('td')[1].textContent : '';", code).strip().replace(",", "")
    return int(t) if t.isdigit() else -1


def check_census_addresses():
    """#census/{id} opened directly shows that census's table (games linking to their jobs), live
    while it runs; the list links each census; a deleted or unknown census's address says so; the
    back button returns from a game's job to the table."""
    cid = STATE["census"]
    doc = api_json("GET", f"/v1/octal/census/{cid}")
    open_address(f"#census/{cid}")
    wait(lambda: q("#census-table").get_attribute("data-id") == cid
         and q("#census-table").get_attribute("data-status") == "done" and len(qs("#census-body tr")) == 2, 30,
         "the census opened by its address")
    assert q("#census-id").get_attribute("value") == cid
    assert cid in D.title, D.title
    link = q('#census-body tr[data-code="0.6"] th a')
    job = doc["games"][1]["job_id"]
    assert link.get_attribute("href").endswith(f"#jobs/{job}"), link.get_attribute("href")
    link.click()
    wait(lambda: here() == f"#jobs/{job}" and qs(f'#job-detail-card article.job[data-id="{job}"]'), 30, "a game's job")
    D.back()
    wait(lambda: here() == f"#census/{cid}" and q("#census").is_displayed()
         and q("#census-table").get_attribute("data-id") == cid and q("#census-table").is_displayed(), 30,
         "back to the census table")
    # The list shows each census as a link to its address.
    open_address("#census")
    wait(lambda: qs(f'#census-list a[href="#census/{cid}"]'), 30, "the census's link in the list")
    assert not q("#census-table").is_displayed()
    q(f'#census-list a[href="#census/{cid}"]').click()
    wait(lambda: here() == f"#census/{cid}" and q("#census-table").get_attribute("data-id") == cid, 30, "the census by its link")
    # A running census's address is live: its rows move on without a click.
    lid = api_json("POST", "/v1/octal/census", {"codes": ["0.6"], "max_n": 50000000})["id"]
    open_address(f"#census/{lid}")
    wait(lambda: q("#census-table").get_attribute("data-id") == lid and qs("#census-body tr"), 30, "the running census")
    assert q("#census-table").get_attribute("data-status") == "running"
    wait(lambda: census_row_n("0.6") > 0, 60, "the running census's first values")
    first = census_row_n("0.6")
    wait(lambda: census_row_n("0.6") > first, 60, "the census's row to move on by itself")
    shot("20-address-census-running")
    q("#census-cancel").click()
    wait(lambda: q("#census-table").get_attribute("data-status") != "running", 60, "the census cancelled")
    wait(lambda: text("#census-cancel") == "Delete census", 10, "the delete button")
    q("#census-cancel").click()
    wait(lambda: here() == "#census" and "deleted" in text("#census-status"), 30, "the census deleted")
    assert not q("#census-table").is_displayed()
    open_address(f"#census/{lid}")
    wait(lambda: q("#census-error").is_displayed(), 30, "the deleted census's address")
    assert "No census" in text("#census-error") and "deleted" in text("#census-error") and lid in text("#census-error")
    assert not q("#census-table").is_displayed()
    open_address("#census/no-such-census")
    wait(lambda: q("#census-error").is_displayed(), 30, "an unknown census's address")
    assert "No census" in text("#census-error") and "no-such-census" in text("#census-error"), text("#census-error")
    shot("21-address-census-unknown")
    refusals_only([404], "a deleted census's address")
    return f"census {cid[:8]} opened; a running one followed, cancelled and deleted"


def check_census_width():
    """The census table uses the screen's width: at 1400 px nothing is scrolled away (the
    histogram column in view); at phone width the table scrolls in its own box, not the page."""
    cid = STATE["census"]
    measure = """
        const w = document.querySelector('#census .table-wrap'), t = document.getElementById('census-table');
        const hist = t.querySelector('thead th:last-child').getBoundingClientRect();
        const canvas = t.querySelector('tbody tr:last-child canvas').getBoundingClientRect();
        const box = w.getBoundingClientRect();
        return {inner: window.innerWidth, wrapScroll: w.scrollWidth, wrapClient: w.clientWidth,
          table: Math.round(t.getBoundingClientRect().width), column: Math.round(document.getElementById('census-form').getBoundingClientRect().width),
          histLeft: hist.left, histRight: hist.right, canvasRight: canvas.right, boxLeft: box.left, boxRight: box.right,
          page: document.documentElement.scrollWidth};"""
    try:
        D.set_window_size(1400, 1000)
        open_address(f"#census/{cid}")
        wait(lambda: q("#census-table").get_attribute("data-status") == "done" and len(qs("#census-body tr")) == 2, 30, "the table")
        m = D.execute_script(measure)
        assert m["wrapScroll"] <= m["wrapClient"], f"at {m['inner']} px the census table needs a horizontal scroll: {m}"
        assert m["boxLeft"] >= 0 and m["histRight"] <= min(m["boxRight"], m["inner"]) + 0.5, f"the histogram column is out of view: {m}"
        assert m["canvasRight"] <= m["inner"], m
        assert m["page"] <= m["inner"], f"the page scrolls sideways at {m['inner']} px: {m}"
        full_shot("22-census-1400")
        wide = m
        D.set_window_size(*PHONE)
        open_address(f"#census/{cid}")
        wait(lambda: q("#census-table").get_attribute("data-status") == "done" and len(qs("#census-body tr")) == 2, 30, "the table")
        m = D.execute_script(measure)
        assert m["wrapScroll"] > m["wrapClient"], f"at phone width the table scrolls in its own box: {m}"
        assert m["page"] <= m["inner"], f"the page scrolls sideways at phone width: {m}"
        # The caption is whole in view: inside the screen and the table's box, nothing cut off.
        cap = D.execute_script("""
            const c = document.getElementById('census-caption').getBoundingClientRect();
            const w = document.querySelector('#census .table-wrap').getBoundingClientRect();
            const el = document.getElementById('census-caption');
            return {left: c.left, right: c.right, inner: window.innerWidth, boxLeft: w.left, boxRight: w.right,
                    scroll: el.scrollWidth, client: el.clientWidth, text: el.textContent};""")
        assert cap["left"] >= cap["boxLeft"] - 0.5 and cap["right"] <= min(cap["boxRight"], cap["inner"]) + 0.5, \
            f"the census caption is cut off at phone width: {cap}"
        assert cap["scroll"] <= cap["client"], f"the census caption overflows its box: {cap}"
        assert_no_broken_words("the census at phone width")
        # Scrolled to its end inside the box, the histogram comes into view.
        D.execute_script("const w = document.querySelector('#census .table-wrap'); w.scrollLeft = w.scrollWidth;")
        m2 = D.execute_script(measure)
        assert m2["histRight"] <= m2["boxRight"] + 0.5 and m2["histLeft"] >= m2["boxLeft"] - 0.5, m2
        full_shot("23-census-phone")
    finally:
        D.set_window_size(*DESKTOP)
    return (f"1400 px: table {wide['table']} px in {wide['wrapClient']} px (column {wide['column']} px); "
            f"phone: table box {m['wrapClient']} px scrolls {m['wrapScroll']} px, page {m['page']} px")


def keyed_json(base, key, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("accept", "application/json")
    req.add_header("authorization", f"Bearer {key}")
    if data is not None:
        req.add_header("content-type", "application/json")
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def check_other_keys_census():
    """On a server with keys: the address of one's own census opens it; that of another key's
    census (and of its job) says it is not there for this key."""
    base, key, other = (os.environ["KEYED_BASE"].rstrip("/"), os.environ["KEYED_KEY"],
                        os.environ["KEYED_OTHER_KEY"])
    mine = keyed_json(base, key, "POST", "/v1/octal/census", {"codes": ["0.07"], "max_n": 1000})["id"]
    theirs = keyed_json(base, other, "POST", "/v1/octal/census", {"codes": ["0.07"], "max_n": 1000})
    their_job = theirs["games"][0]["job_id"]
    open_address("#play", base)
    D.execute_script("sessionStorage.setItem('grundy-api-key', arguments[0])", key)
    try:
        open_address(f"#census/{mine}", base)
        wait(lambda: q("#census-table").get_attribute("data-id") == mine and q("#census-table").is_displayed(), 30,
             "one's own census by its address")
        open_address(f"#census/{theirs['id']}", base)
        wait(lambda: q("#census-error").is_displayed(), 30, "another key's census")
        assert "another API key" in text("#census-error") and theirs["id"] in text("#census-error"), text("#census-error")
        assert not q("#census-table").is_displayed()
        shot("24-address-census-other-key")
        open_address(f"#jobs/{their_job}", base)
        wait(lambda: q("#jobs-error").is_displayed(), 30, "another key's job")
        assert "another API key" in text("#jobs-error"), text("#jobs-error")
        assert not qs("#job-detail-card article")
        refusals_only([404], "another key's census and job")
    finally:
        D.execute_script("sessionStorage.removeItem('grundy-api-key')")
        D.get(f"{BASE}/#play")
    return f"own census {mine[:8]} shown; another key's census and job refused in words"


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
        assert_no_broken_words("the play page at phone width")
        full_shot("11-phone-play")
        load("explore")
        set_value("#ex-code", "0.07")
        set_value("#ex-n", 2000)
        q("#ex-plot").click()
        wait(lambda: q("#ex-result").get_attribute("data-ready") == "true", 60, "the plot")
        overflow = D.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the explorer scrolls sideways by {overflow}px at phone width"
        assert_no_broken_words("the explorer at phone width")
        full_shot("12-phone-explorer")
        load("jobs")
        wait(lambda: qs("#job-list li.job"), 30, "the job list")
        overflow = D.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the jobs page scrolls sideways by {overflow}px at phone width"
        assert_no_broken_words("the jobs page at phone width")
        if STATE.get("job"):
            open_address(f"#jobs/{STATE['job']}")
            wait(lambda: qs("#job-stats-n"), 30, "a job's statistics at phone width")
            assert_no_broken_words("a job at phone width")
            assert_histogram_axes()
            load("jobs")
        full_shot("13-phone-jobs")
        load("census")
        wait(lambda: qs("#census-list li.job a"), 30, "the census list")
        qs("#census-list li.job a")[0].click()
        wait(lambda: qs("#census-body tr"), 30, "the census table")
        wrap = D.execute_script(
            "const w = document.querySelector('#census .table-wrap'); return [w.scrollWidth, w.clientWidth];")
        assert wrap[0] > wrap[1], f"at phone width the census table scrolls inside its box ({wrap})"
        overflow = D.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the census page scrolls sideways by {overflow}px at phone width (its table scrolls in its box)"
        assert_no_broken_words("the census page at phone width")
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
    ("explorer: a quotient beyond the budget computed by a job; the Jobs page lists and cancels them", check_misere_quotient_job),
    ("markup in a code is shown as text", check_injected_markup_is_text),
    ("jobs: submit, watch to done, cancel", check_jobs),
    ("census: start a small one, rows shown live until done", check_census),
    ("addresses: #explore?code=…&n=…&misere=… opened, rewritten, walked back; bad ones said", check_explore_addresses),
    ("addresses: #jobs/{id} opened (statistics, Plot, live), listed as links, deleted", check_job_addresses),
    ("jobs: a job ended by a proof is done with a full bar, proved periodic at heap N", check_job_ended_by_a_proof),
    ("addresses: #census/{id} opened (live), listed as links, deleted, unknown; back from a job", check_census_addresses),
    ("census table: whole at 1400 px, scrolls in its own box at phone width", check_census_width),
    ("census: the list's status, games done and date; Published compared at the same n, or its n said", check_census_published_at_same_n),
    ("jobs: every job paged through with the true count; page and filters in the address, restored on load", check_jobs_paging_and_filters),
    *([("jobs on a server with API keys: ask, refuse, use, forget", check_jobs_with_a_key),
       ("addresses on a server with API keys: another key's census and job", check_other_keys_census)]
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
