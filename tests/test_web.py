"""The browser table (``rummy500 serve``): its JSON API over plain HTTP, and the page in Chromium.

The API tests check every refusal (bad JSON, unknown game, oversized body,
illegal or stale move, another seat's move), that a live page never receives
a hidden card, and that a saved game replays. The browser tests play a hand
against a bot and step through a replay in headless Chromium; they skip, saying
why, where Chromium, its driver or Selenium is missing (``scripts/install.sh``
installs all three).
"""

from __future__ import annotations

import http.client
import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from rummy500.commands import replay as replay_tool
from rummy500.web.live import LiveGame
from rummy500.web.refusals import Refusal
from rummy500.web.replays import CHECKPOINT_EVERY, ReplayFile
from rummy500.web.saving import save_record
from rummy500.web.server import MAX_BODY, make_server
from rummy500.web.tables import Tables
from rummy_env.core import (
    BatchRecorder,
    Rules,
    action_layout,
    card_text,
    init,
    legal_mask,
    read_records,
    sample_legal,
    step,
    step_inplace,
    write_records,
)

pytestmark = pytest.mark.slow

CARD = re.compile(r"\b(?:[A2-9TJQK][CDHS]|JK)\b")


# --- a server for the tests, and plain HTTP calls ------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A table server on a free port, serving from a thread; stopped after the module."""
    srv = make_server(port=0, records_dir=tmp_path_factory.mktemp("records"))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=10)


def call(
    srv,
    method: str,
    path: str,
    body=None,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict]:
    """(status, JSON answer) of one request; ``raw`` sends bytes as they are."""
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        sent = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, path, body=data, headers={**sent, **(headers or {})})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def new_game(srv, **fields) -> dict:
    status, view = call(srv, "POST", "/api/games", {"opponents": ["random"], "seed": 3, **fields})
    assert status == 200, view
    return view


def game_of(srv, game_id: str) -> LiveGame:
    """The server's own game object (the tests look behind the page's back)."""
    return srv.tables.items[game_id]


def play_out(srv, view: dict, rng: np.random.Generator, on_view=None, limit: int = 3000) -> dict:
    """Play a game to its end through the API: random legal moves for the person, the agent
    moved with ``advance``. ``on_view(view)`` sees every answer."""
    for _ in range(limit):
        if view["waiting"] == "over":
            return view
        if view["waiting"] == "agent":
            status, view = call(
                srv, "POST", f"/api/games/{view['id']}/advance", {"version": view["version"]}
            )
        else:
            move = view["moves"][int(rng.integers(len(view["moves"])))]["text"]
            status, view = call(
                srv,
                "POST",
                f"/api/games/{view['id']}/act",
                {"action": move, "version": view["version"]},
            )
        assert status == 200, view
        if on_view is not None:
            on_view(view)
    raise AssertionError("the game did not end")


# --- the page's files ----------------------------------------------------------------
def test_page_and_its_files_are_served(server):
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=30)
    for path, kind in (
        ("/", "text/html"),
        ("/static/app.js", "text/javascript"),
        ("/static/style.css", "text/css"),
    ):
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200 and response.getheader("Content-Type").startswith(kind)
        assert b"http://" not in body.replace(b"http://www.w3.org", b"")  # nothing fetched
    conn.close()
    assert call(server, "GET", "/static/../server.py")[0] == 404
    assert call(server, "GET", "/nothing/here")[0] == 404


def test_options_list_presets_and_agents(server):
    status, options = call(server, "GET", "/api/options")
    assert status == 200
    assert {"standard", "web", "jokers"} <= set(options["presets"])
    assert {"random", "casual", "sharp"} <= set(options["agents"])


def test_a_page_seats_only_the_agents_the_server_was_started_with(tmp_path):
    """Agents from outside (code to run, files to read) come only from the command line."""
    script = tmp_path / "page_bot.py"
    script.write_text(
        "class Bot:\n    name = 'page-bot'\n    def __init__(self, rules, seed):"
        "\n        pass\n    def act(self, decision):\n"
        "        return decision.mask.argmax(axis=1)\n"
    )
    offered = ["py:page_bot:Bot", "random"]
    sys.path.insert(0, str(tmp_path))
    try:
        srv = make_server(port=0, records_dir=tmp_path / "records", agents=offered)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            assert call(srv, "GET", "/api/options")[1]["agents"] == offered
            status, view = call(
                srv,
                "POST",
                "/api/games",
                {"mode": "watch", "opponents": ["py:page_bot:Bot", "random"]},
            )
            assert status == 200, view
            for spec in (
                "sharp",
                "ckpt:/etc/passwd",
                "cmd:touch x",
                "py:os:system",
                "sb3:/etc/hostname",
                "py:page_bot:Bo",
            ):
                status, answer = call(srv, "POST", "/api/games", {"opponents": [spec]})
                assert status == 400 and "does not offer" in answer["error"], (spec, answer)
                assert "/etc" not in answer["error"].split("offers:")[1]
        finally:
            srv.shutdown()
            srv.server_close()
    finally:
        sys.path.remove(str(tmp_path))


def test_an_agent_that_fails_is_refused_and_the_game_waits(tmp_path, capfd):
    """An outside agent that raises: the page is told which (502), the server's log why, and
    the game stays as it was."""
    (tmp_path / "broken_bot.py").write_text(
        "class Bot:\n    name = 'broken'\n    def __init__(self, rules, seed):\n        pass\n"
        "    def act(self, decision):\n        raise RuntimeError('lost my weights')\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        srv = make_server(
            port=0, records_dir=tmp_path / "records", agents=["py:broken_bot:Bot", "random"]
        )
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            status, view = call(
                srv,
                "POST",
                "/api/games",
                {"mode": "watch", "opponents": ["py:broken_bot:Bot", "random"]},
            )
            assert status == 200, view
            game = game_of(srv, view["id"])
            while int(game.state.current_player[0]) != 0:  # the broken agent sits in seat 0
                status, view = call(
                    srv, "POST", f"/api/games/{view['id']}/advance", {"version": view["version"]}
                )
                assert status == 200, view
            status, answer = call(
                srv, "POST", f"/api/games/{view['id']}/advance", {"version": view["version"]}
            )
            assert status == 502 and "py:broken_bot:Bot failed" in answer["error"]
            assert "lost my weights" not in answer["error"]
            assert "act raised RuntimeError: lost my weights" in capfd.readouterr().err
            assert game.version == view["version"]
        finally:
            srv.shutdown()
            srv.server_close()
    finally:
        sys.path.remove(str(tmp_path))


# --- refusals ------------------------------------------------------------------------
def test_bad_json_and_bad_fields_are_refused_with_400(server):
    status, answer = call(server, "POST", "/api/games", raw=b"{not json")
    assert status == 400 and "bad JSON" in answer["error"] and answer["status"] == 400
    for body, words in (
        ([1, 2], "JSON object"),
        ({"players": "two"}, "'players'"),
        ({"preset": "nope"}, "preset"),
        ({"flags": "wrap=maybe"}, "wrap"),
        ({"opponents": ["grandmaster"]}, "does not offer"),
        ({"mode": "sleep"}, "'mode'"),
        ({"seat": 5}, "'seat'"),
    ):
        status, answer = call(server, "POST", "/api/games", body)
        assert status == 400 and words in answer["error"], (body, answer)
    status, answer = call(
        server, "POST", "/api/games", raw=b"{}", headers={"Content-Type": "text/plain"}
    )
    assert status == 415


def test_unknown_games_are_refused_with_404(server):
    for method, path, body in (
        ("GET", "/api/games/nosuchgame", None),
        ("POST", "/api/games/nosuchgame/act", {"action": "draw", "version": 0}),
        ("POST", "/api/games/nosuchgame/advance", {"version": 0}),
        ("DELETE", "/api/games/nosuchgame", None),
        ("GET", "/api/replays/nosuchreplay/frame", None),
    ):
        status, answer = call(server, method, path, body)
        assert status == 404 and "no such" in answer["error"], (path, answer)


def test_oversized_bodies_are_refused_with_413(server):
    view = new_game(server)
    path = f"/api/games/{view['id']}/act"
    big = json.dumps({"action": "draw", "version": 0, "pad": "x" * MAX_BODY}).encode()
    status, answer = call(server, "POST", path, raw=big)
    assert status == 413 and "limit" in answer["error"]
    status, answer = call(server, "POST", path, raw=b"{}", headers={"Content-Length": str(10**9)})
    assert status == 413
    assert call(server, "GET", f"/api/games/{view['id']}")[1]["version"] == 0


def test_an_illegal_move_is_refused_and_changes_nothing(server):
    view = new_game(server)
    path = f"/api/games/{view['id']}"
    before = call(server, "GET", path)[1]
    for action, status_wanted in (
        ("discard 2S", 409),
        ("meld 2S 3S 4S", 409),
        ("fly away", 400),
        ("take 99", 400),
    ):
        status, answer = call(
            server, "POST", f"{path}/act", {"action": action, "version": view["version"]}
        )
        assert status == status_wanted, (action, answer)
    assert call(server, "GET", path)[1] == before


def test_stale_and_out_of_turn_requests_are_refused(server):
    view = new_game(server)
    path = f"/api/games/{view['id']}"
    status, after = call(server, "POST", f"{path}/act", {"action": "draw", "version": 0})
    assert status == 200 and after["version"] == 1
    status, answer = call(server, "POST", f"{path}/act", {"action": "draw", "version": 0})
    assert status == 409 and "stale" in answer["error"]
    status, answer = call(server, "POST", f"{path}/advance", {"version": 1})
    assert status == 409 and "your turn" in answer["error"]
    status, answer = call(server, "POST", f"{path}/act", {"action": "draw"})
    assert status == 400 and "version" in answer["error"]
    assert call(server, "GET", path)[1]["version"] == 1


def test_another_seats_move_is_refused(server):
    view = new_game(server)
    path = f"/api/games/{view['id']}"
    status, answer = call(
        server, "POST", f"{path}/act", {"action": "draw", "version": 0, "seat": 1}
    )
    assert status == 403 and "seat 0" in answer["error"]
    discard = next(
        m["text"]
        for m in call(server, "POST", f"{path}/act", {"action": "draw", "version": 0})[1]["moves"]
        if m["verb"] == "discard"
    )
    call(server, "POST", f"{path}/act", {"action": discard, "version": 1})
    status, answer = call(server, "POST", f"{path}/act", {"action": "draw", "version": 2})
    assert status == 409 and "not your turn" in answer["error"]
    assert call(server, "GET", f"{path}?face_up=1")[0] == 403


def test_foreign_host_names_are_refused(server):
    status, answer = call(server, "GET", "/api/options", headers={"Host": "evil.example"})
    assert status == 400 and "127.0.0.1" in answer["error"]


# --- what the page is sent -----------------------------------------------------------
def hidden_cards(game: LiveGame) -> set[str]:
    """Texts of the cards the person may not see now: the stock and the unknown part of
    every other hand."""
    state = game.state
    hidden = {card_text(int(c)) for c in state.stock[0, : int(state.stock_size[0])]}
    for seat in range(game.rules.players):
        if seat != game.person:
            unknown = state.hand[0, seat] - state.known[0, seat]
            hidden |= {card_text(c) for c in np.flatnonzero(unknown > 0)}
    return hidden


def test_the_page_never_receives_hidden_cards(server):
    view = new_game(
        server, flags="max_turns=8 max_hands=3", players=3, opponents=["random", "casual"], seed=11
    )
    game = game_of(server, view["id"])
    checked = []

    def check(view: dict) -> None:
        if view["waiting"] == "over":
            return
        public = {k: v for k, v in view.items() if k not in ("last_move", "hand_end")}
        shown = set(CARD.findall(json.dumps(public)))
        assert not shown & hidden_cards(game), view["version"]
        assert view["seed"] is None
        assert all(s["hand"] is None for k, s in enumerate(view["seats"]) if k != 0)
        assert view["hand_end"] is None or view["hand_end"]["hands"] is None
        if view["waiting"] != "you":
            assert view["moves"] == []
        checked.append(view["version"])

    play_out(server, view, np.random.default_rng(0), on_view=check)
    assert len(checked) > 30


def test_a_watched_game_may_show_every_hand(server):
    view = new_game(server, mode="watch", opponents=["random"])
    path = f"/api/games/{view['id']}"
    assert all(s["hand"] is None for s in view["seats"])
    status, moved = call(server, "POST", f"{path}/advance", {"version": 0, "face_up": True})
    assert status == 200 and moved["last_move"]["text"] in ("draw", "take 1")
    assert all(len(s["hand"]) == s["hand_size"] for s in moved["seats"])
    status, answer = call(server, "POST", f"{path}/act", {"action": "draw", "version": 1})
    assert status == 409 and "watched" in answer["error"]


# --- records -------------------------------------------------------------------------
def test_a_finished_game_is_saved_and_replays(server, capsys):
    view = new_game(server, flags="max_turns=10 max_hands=1", seed=5)
    path = f"/api/games/{view['id']}"
    status, answer = call(server, "POST", f"{path}/save", {})
    assert status == 409 and "not over" in answer["error"]
    final = play_out(server, view, np.random.default_rng(1))
    assert final["game_over"] and final["seed"] == 5
    status, saved = call(server, "POST", f"{path}/save", {})
    assert status == 200
    assert "/" not in saved["path"]  # a name in the records folder, no server path
    saved_path = server.records_dir / saved["path"]
    [record] = list(read_records(saved_path))
    assert record.agents == ["human", "random"] and record.seed == 5
    assert len(record.actions) == final["version"]
    assert call(server, "GET", f"{path}/record")[1]["line"] == saved_path.read_text().strip()
    assert not list(saved_path.parent.glob("*.tmp"))
    assert replay_tool.main([str(saved_path)]) == 0
    assert "replay matches the record" in capsys.readouterr().out


def test_saving_leaves_the_old_file_whole_when_writing_fails(tmp_path, monkeypatch):
    record = BatchRecorder(Rules(), 1)
    record.start(0, 0, ["a", "b"])
    record.finish(init(Rules(), 1, game_ids=[0]), np.array([0]))
    path = save_record(tmp_path, "game.jsonl", record.done[0])
    before = path.read_text()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("rummy500.web.saving.os.replace", broken)
    with pytest.raises(OSError):
        save_record(tmp_path, "game.jsonl", record.done[0])
    assert path.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["game.jsonl"]


def random_record_file(path: Path, seed: int = 2) -> list:
    """A short game of two random players written as a record file (as ``eval --record``)."""
    rules = Rules.from_dict({"max_turns": 30, "max_hands": 2})
    rng = np.random.default_rng(seed)
    state = init(rules, seed, game_ids=[0])
    recorder = BatchRecorder(rules, seed)
    recorder.start(0, 0, ["random", "random"])
    while not state.game_over[0]:
        action = sample_legal(legal_mask(rules, state), rng)
        recorder.actions(np.array([0]), action)
        step_inplace(rules, state, action)
    recorder.finish(state, np.array([0]))
    write_records(path, recorder.done, append=False)
    return recorder.done


def test_replay_frames_step_both_ways(server, tmp_path):
    [record] = random_record_file(tmp_path / "game.jsonl")
    status, opened = call(
        server, "POST", "/api/replays", {"records": (tmp_path / "game.jsonl").read_text()}
    )
    assert status == 200 and opened["games"][0]["moves"] == len(record.actions)
    frame = f"/api/replays/{opened['id']}/frame?game=0"
    n = len(record.actions)
    forward = [call(server, "GET", f"{frame}&move={k}")[1] for k in range(n + 1)]
    assert forward[0]["last_move"] is None and forward[0]["next_move"] == record.actions[0]
    assert [f["last_move"]["text"] for f in forward[1:]] == record.actions
    assert forward[-1]["game_over"]
    assert [s["total"] for s in forward[-1]["seats"]] == record.result["totals"]
    assert n > 2 * CHECKPOINT_EVERY
    for k in (n, n // 2, CHECKPOINT_EVERY + 1, CHECKPOINT_EVERY, CHECKPOINT_EVERY - 1, 1, 0):
        assert call(server, "GET", f"{frame}&move={k}")[1] == forward[k]
    assert len(forward[0]["hand_starts"]) == record.result["hands"]
    assert sum(f["hand_end"] is not None for f in forward) == record.result["hands"]
    assert all(len(s["hand"]) == s["hand_size"] for s in forward[5]["seats"])
    seat_view = call(server, "GET", f"{frame}&move=5&seat=1")[1]
    assert seat_view["seats"][0]["hand"] is None and seat_view["seats"][1]["hand"]
    assert call(server, "GET", f"{frame}&move={n + 1}")[0] == 400
    assert call(server, "GET", f"/api/replays/{opened['id']}/frame?game=3")[0] == 404


def test_bad_record_files_are_refused(server):
    for text, words in (
        ("not json", "line 1"),
        ("", "no game"),
        ('{"format": "other"}', "not a rummy500-record"),
        (
            '{"format": "rummy500-record/1", "rules": {}, "seed": 1, "game_id": 0,'
            ' "agents": ["a", "b"], "actions": "draw"}',
            "list of action texts",
        ),
    ):
        status, answer = call(server, "POST", "/api/replays", {"records": text})
        assert status == 400 and words in answer["error"], (text, answer)
    line = (
        '{"format": "rummy500-record/1", "rules": {}, "seed": 1, "game_id": 0, '
        '"agents": ["a", "b"], "actions": ["draw", "draw"], "result": {}}'
    )
    status, opened = call(server, "POST", "/api/replays", {"records": line})
    status, answer = call(server, "GET", f"/api/replays/{opened['id']}/frame?game=0&move=1")
    assert status == 400 and "does not replay" in answer["error"]


# --- holding games -------------------------------------------------------------------
def test_games_are_bounded_and_idle_ones_expire():
    now = [0.0]
    tables = Tables(max_tables=2, idle_seconds=60, clock=lambda: now[0])
    first, _ = tables.add(lambda: ReplayFile([]))
    tables.add(lambda: ReplayFile([]))
    made = []
    with pytest.raises(Refusal) as full:
        tables.add(lambda: made.append(1))
    assert full.value.status == 503 and not made  # refused before anything is made
    now[0] = 30.0
    tables.get(first, ReplayFile)
    now[0] = 80.0  # the second idled 80 s, the first 50 s
    third, _ = tables.add(lambda: ReplayFile([]))
    assert {first, third} == set(tables.items)
    with pytest.raises(Refusal) as wrong_kind:
        tables.get(first, LiveGame)
    assert wrong_kind.value.status == 404


def test_each_tab_gets_its_own_game(server):
    views = [new_game(server, seed=s) for s in (1, 2)]
    assert views[0]["id"] != views[1]["id"]
    call(server, "POST", f"/api/games/{views[0]['id']}/act", {"action": "draw", "version": 0})
    assert call(server, "GET", f"/api/games/{views[1]['id']}")[1]["version"] == 0
    assert call(server, "DELETE", f"/api/games/{views[0]['id']}")[0] == 200
    assert call(server, "GET", f"/api/games/{views[0]['id']}")[0] == 404


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_command_prints_its_address_and_stops(tmp_path, stop):
    """It stops cleanly on either signal, also started with SIGINT ignored (a script's
    background job)."""
    command = [
        sys.executable,
        "-m",
        "rummy500.cli",
        "serve",
        "--port",
        "0",
        "--records",
        str(tmp_path),
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        conn = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=30)
        conn.request("GET", "/api/options")
        assert conn.getresponse().status == 200
        conn.close()
        process.send_signal(stop)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# --- in the browser ------------------------------------------------------------------
def chrome_driver():
    """A headless Chromium under Selenium, or a skip that says what is missing."""
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium is missing: pip install -e '.[web]'"
    )
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip(
            "chromium or chromedriver is missing: apt-get install chromium "
            "chromium-driver (scripts/install.sh does it)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(
        service=webdriver.ChromeService(executable_path=driver), options=options
    )


@pytest.fixture
def page(server):
    """A browser tab on the server's page; closed after the test."""
    driver = chrome_driver()
    driver.implicitly_wait(0)
    driver.get(server.url)
    yield driver
    driver.quit()


def wait_for(driver, what, timeout: float = 30.0):
    """Poll ``what(driver)`` until it is truthy; its value, or a failure naming the page text."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            value = what(driver)
        except Exception:  # the page is being redrawn under us
            value = None
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(
        "timed out; the page shows: " + driver.find_element("tag name", "body").text[:2000]
    )


def meldable_seed(rules: Rules) -> int:
    """A deal in which seat 0 can lay a meld right after drawing from the stock."""
    ids = action_layout(rules)
    for seed in range(200):
        mask = legal_mask(rules, step(rules, init(rules, seed, game_ids=[0]), [ids.DRAW]))
        if mask[0, ids.MELD : ids.LAYOFF].any():
            return seed
    raise AssertionError("no deal with a meld")


def choose(driver, select_id: str, value: str) -> None:
    """Pick an option of a ``<select>`` as a person would (the page hears the change)."""
    from selenium.webdriver.support.select import Select

    Select(driver.find_element("id", select_id)).select_by_value(value)


def css(driver, selector: str):
    return driver.find_elements("css selector", selector)


def click_move(driver, move: str, cards: list[str]) -> None:
    """Select ``cards`` in the hand, then click the move's button that appears."""

    def unselected(card: str):
        return lambda d: [
            e
            for e in css(d, f'#hand [data-card="{card}"]')
            if "selected" not in e.get_attribute("class")
        ]

    for card in cards:
        wait_for(driver, unselected(card))[0].click()
    wait_for(driver, lambda d: css(d, f'#controls [data-move="{move}"]'))[0].click()


def my_turn(driver) -> bool:
    return css(driver, "#status")[0].get_attribute("data-waiting") == "you" and bool(
        css(driver, "#move-list [data-move]")
    )


def legal_in_page(driver) -> list[str]:
    return [e.get_attribute("data-move") for e in css(driver, "#move-list [data-move]")]


def test_browser_plays_a_hand_against_a_bot(server, page):
    flags = "max_turns=8"
    seed = meldable_seed(Rules.from_dict({"max_turns": 8}))
    form = page.find_element("id", "play-form")
    pickers = form.find_elements("css selector", ".seat-agents select")
    assert len(pickers) == 1  # one opponent at two seats, a choice and no free text
    assert not form.find_elements("css selector", ".seat-agents input")
    from selenium.webdriver.support.select import Select

    Select(pickers[0]).select_by_value("casual")
    form.find_element("name", "flags").send_keys(flags)
    form.find_element("name", "seed").send_keys(str(seed))
    choose(page, "pace", "250")
    form.find_element("css selector", "button[type=submit]").click()

    wait_for(page, lambda d: len(css(d, "#hand .card")) == 13)
    assert wait_for(page, lambda d: "draw from the stock" in css(d, "#status")[0].text)
    assert css(page, "#stock")[0].text == "25" and len(css(page, "#pile .card")) == 1
    css(page, "#stock")[0].click()
    wait_for(page, lambda d: len(css(d, "#hand .card")) == 14 and my_turn(d))
    meld = next(m for m in legal_in_page(page) if m.startswith("meld"))
    click_move(page, meld, meld.split()[1:])
    wait_for(page, lambda d: len(css(d, "#melds .meld")) == 1)
    laid = [e.text for e in css(page, "#melds .meld .by")]
    assert laid == ["you"] * (len(meld.split()) - 1)
    game = game_of(server, page.execute_script("return app.id"))

    turns = 0
    while not css(page, "#hand-over:not([hidden])"):
        wait_for(page, lambda d: my_turn(d) or css(d, "#hand-over:not([hidden])"), 60)
        if css(page, "#hand-over:not([hidden])"):
            break
        moves = legal_in_page(page)
        if "draw" in moves:
            css(page, "#stock")[0].click()
            wait_for(page, lambda d: "draw" not in legal_in_page(d))
            continue
        discard = next(m for m in moves if m.startswith("discard"))
        click_move(page, discard, [discard.split()[1]])
        turns += 1
        if css(page, "#hand-over:not([hidden])"):
            break
        wait_for(
            page,
            lambda d: (
                any("casual" in e.text for e in css(d, "#log li"))
                and (my_turn(d) or css(d, "#hand-over:not([hidden])"))
            ),
            60,
        )
    assert turns >= 1
    log = [e.text for e in css(page, "#log li")]
    assert any(line.startswith("casual (seat 1): ") for line in log), log
    assert "you: " + meld in log
    title = css(page, "#hand-over-title")[0].text
    assert title.startswith("Hand 1 is over")
    scores = [int(e.text) for e in css(page, "#hand-over-scores td.score")]
    assert scores == game.hand_end["scores"]
    css(page, "#hand-over-ok")[0].click()
    wait_for(page, lambda d: "Hand 2" in css(d, "#status")[0].text)


def test_browser_steps_through_a_replay(server, page, tmp_path):
    [record] = random_record_file(tmp_path / "game.jsonl", seed=4)
    n = len(record.actions)
    css(page, '.tab[data-tab="replay"]')[0].click()
    form = page.find_element("id", "replay-form")
    form.find_element("name", "file").send_keys(str(tmp_path / "game.jsonl"))
    form.find_element("css selector", "button[type=submit]").click()
    position = lambda d: css(d, "#replay-pos")[0].text  # noqa: E731
    wait_for(page, lambda d: position(d) == f"move 0 of {n}")
    assert len(css(page, "#seats .face-up")) == 2  # every hand face up
    step_button = lambda name: css(page, f'#replay-bar [data-step="{name}"]')[0]  # noqa: E731
    step_button("forward").click()
    wait_for(page, lambda d: position(d) == f"move 1 of {n}")
    step_button("forward").click()
    wait_for(page, lambda d: position(d) == f"move 2 of {n}")
    step_button("back").click()
    wait_for(page, lambda d: position(d) == f"move 1 of {n}")
    assert css(page, "#log li")[0].text == f"random (seat 0): {record.actions[0]}"
    step_button("end").click()
    wait_for(page, lambda d: position(d) == f"move {n} of {n}")
    assert "Game over" in css(page, "#status")[0].text
    choose(page, "replay-seat", "1")
    wait_for(
        page,
        lambda d: (
            css(d, "#hand-area:not([hidden])")
            and css(d, "#hand-title")[0].get_attribute("textContent") == "random's hand"
        ),
    )


def test_hostile_bodies_are_answered_400_and_nothing_changes(server):
    deep = b'{"mode": ' + b"[" * 30_000 + b"]" * 30_000 + b"}"
    huge = b'{"seed": ' + b"9" * 5000 + b"}"
    for raw in (deep, huge):
        status, answer = call(server, "POST", "/api/games", raw=raw)
        assert status == 400 and "bad JSON" in answer["error"], answer
    view = new_game(server, seat=1)
    if view["waiting"] == "you":  # the agent must be the one to move
        view = new_game(server, seat=0)
    assert view["waiting"] != "you"
    before = game_of(server, view["id"]).version
    status, answer = call(
        server, "POST", f"/api/games/{view['id']}/advance", {"version": before, "face_up": True}
    )
    assert status == 403
    assert game_of(server, view["id"]).version == before  # refused: the game did not move


def test_a_records_folder_that_cannot_be_written_is_a_503_naming_no_path(tmp_path):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the records folder should be")
    srv = make_server(port=0, records_dir=blocker / "records")
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        view = new_game(srv, mode="watch", opponents=["random"], flags="target=50")
        while not view.get("waiting") == "over":
            status, view = call(
                srv, "POST", f"/api/games/{view['id']}/advance", {"version": view["version"]}
            )
            assert status == 200, view
        status, answer = call(srv, "POST", f"/api/games/{view['id']}/save", {})
        assert status == 503 and "download" in answer["error"]
        assert str(tmp_path) not in answer["error"]
    finally:
        srv.shutdown()
        srv.server_close()
