"""The browser UI of ``neocoder serve`` against attacks tried on a running server (issue 47,
item 7): sign-in guessing, content sniffing, the cookie behind an HTTPS proxy, a planted
sign-in cookie, a NUL byte in a board path and a forged Host header.

Each test starts the real server (``python -m neocoder.cli serve``, the process sandbox:
nothing here judges a program) and talks HTTP to it on loopback, as a browser or an
attacker's script would.
"""

import re

import pytest
import requests
from servers import TOKEN, ServerProcess


@pytest.fixture
def serve(tmp_path, release_dir):
    """Start a server with extra ``serve`` options; every one started is stopped after."""
    started = []

    def start(*args: str) -> ServerProcess:
        server = ServerProcess(tmp_path / f"data{len(started)}", release_dir, "--sandbox", "process", "--workers",
                               "1", "--log-level", "warning", *args).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


def signin_form(session: requests.Session, url: str, headers=None) -> str:
    """GET the sign-in form; the CSRF value it carries (the login cookie holds the same)."""
    got = session.get(url + "/web/signin", headers=headers or {}, timeout=30)
    assert got.status_code == 200, got.text
    # the sign-in form's own value (signed in, the page also has the sign-out form's)
    return re.search(r'id="signin"[^>]*>\s*<input type="hidden" name="csrf" value="([^"]+)"', got.text).group(1)


def sign_in(session: requests.Session, url: str, token: str, headers=None) -> requests.Response:
    """The form fetched, then posted with ``token`` and the login cookie, as a browser does
    (also over HTTPS, where requests would keep a Secure cookie back on this http URL);
    the answer (redirects not followed)."""
    csrf = signin_form(session, url, headers)
    return session.post(url + "/web/signin", data={"csrf": csrf, "token": token}, headers=headers or {},
                        cookies={"neocoder_login": csrf}, allow_redirects=False, timeout=30)


def test_wrong_tokens_lock_the_address_out_then_it_may_try_again(serve):
    server = serve("--signin-attempts", "3", "--signin-lockout", "2")
    browser = requests.Session()
    answers = [sign_in(browser, server.url, "wrong-token-0123456789abcdef").status_code for _ in range(3)]
    assert answers == [401, 401, 429], answers
    locked = sign_in(browser, server.url, TOKEN)  # even the right token waits out the lockout
    assert locked.status_code == 429 and 1 <= int(locked.headers["Retry-After"]) <= 2, locked.headers
    assert "try again in" in locked.text
    import time
    time.sleep(2.2)
    allowed = sign_in(browser, server.url, TOKEN)
    assert allowed.status_code == 303 and "neocoder_session" in allowed.headers["set-cookie"]
    # the success cleared the count: three more wrong tokens are needed for the next lockout
    assert [sign_in(browser, server.url, "wrong-token-0123456789abcdef").status_code for _ in range(2)] == [401, 401]


def test_the_second_lockout_lasts_twice_as_long(serve):
    server = serve("--signin-attempts", "1", "--signin-lockout", "1")
    browser = requests.Session()
    first = sign_in(browser, server.url, "wrong-token-0123456789abcdef")
    assert first.status_code == 429 and first.headers["Retry-After"] == "1"
    import time
    time.sleep(1.2)
    second = sign_in(browser, server.url, "wrong-token-0123456789abcdef")
    assert second.status_code == 429 and second.headers["Retry-After"] == "2", second.headers


def test_every_answer_says_nosniff_and_scripts_carry_a_policy(serve):
    server = serve()
    answers = {path: requests.get(server.url + path, timeout=30)
               for path in ("/", "/web/signin", "/web/static/job.js", "/web/board/static/leaderboard.js",
                            "/web/board/missing.html", "/healthz", "/v1/problems")}
    answers["/v1/problems (token)"] = server.call("GET", "/v1/problems")
    for path, answer in answers.items():
        assert answer.headers.get("X-Content-Type-Options") == "nosniff", (path, answer.status_code, answer.headers)
    for path in ("/web/static/job.js", "/web/board/static/leaderboard.js"):
        assert answers[path].status_code == 200
        assert "default-src 'self'" in answers[path].headers["Content-Security-Policy"], path


def test_the_cookie_is_secure_only_behind_a_trusted_proxy(serve):
    proxied = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    plain = serve()
    got = sign_in(requests.Session(), plain.url, TOKEN, headers=proxied)
    assert got.status_code == 303
    assert "secure" not in got.headers["set-cookie"].lower()  # the header of an untrusted sender is ignored

    behind = serve("--trusted-proxy", "127.0.0.1")
    got = sign_in(requests.Session(), behind.url, TOKEN, headers=proxied)
    assert got.status_code == 303, got.text
    cookie = got.headers["set-cookie"]
    assert "neocoder_session" in cookie and "secure" in cookie.lower() and "httponly" in cookie.lower(), cookie


def test_a_trusted_proxy_lockout_counts_the_client_address(serve):
    """Behind the proxy, two clients are two addresses: one's lockout is not the other's."""
    server = serve("--trusted-proxy", "127.0.0.1", "--signin-attempts", "1", "--signin-lockout", "30")
    mallory = {"X-Forwarded-For": "203.0.113.66"}
    assert sign_in(requests.Session(), server.url, "wrong-token-0123456789abcdef", mallory).status_code == 429
    alice = {"X-Forwarded-For": "198.51.100.7"}
    assert sign_in(requests.Session(), server.url, TOKEN, alice).status_code == 303


def test_a_planted_login_cookie_the_server_never_issued_signs_nobody_in(serve):
    server = serve()
    planted = "planted-by-the-attacker-0123456789abcdef"
    attacker_form = requests.post(server.url + "/web/signin", data={"csrf": planted, "token": TOKEN},
                                  cookies={"neocoder_login": planted}, allow_redirects=False, timeout=30)
    assert attacker_form.status_code == 403 and "neocoder_session" not in attacker_form.headers.get("set-cookie", "")
    # an issued value works once, not twice
    browser = requests.Session()
    csrf = signin_form(browser, server.url)
    first = browser.post(server.url + "/web/signin", data={"csrf": csrf, "token": TOKEN}, allow_redirects=False,
                         timeout=30)
    assert first.status_code == 303
    replay = requests.post(server.url + "/web/signin", data={"csrf": csrf, "token": TOKEN},
                           cookies={"neocoder_login": csrf}, allow_redirects=False, timeout=30)
    assert replay.status_code == 403
    # a form posted from another site's page is refused, even with a fresh issued value
    other = requests.Session()
    csrf = signin_form(other, server.url)
    cross = other.post(server.url + "/web/signin", data={"csrf": csrf, "token": TOKEN},
                       headers={"Origin": "http://attacker.invalid"}, allow_redirects=False, timeout=30)
    assert cross.status_code == 403
    csrf = signin_form(other, server.url)  # a page that hides its origin sends "null": refused too
    hidden = other.post(server.url + "/web/signin", data={"csrf": csrf, "token": TOKEN}, headers={"Origin": "null"},
                        allow_redirects=False, timeout=30)
    assert hidden.status_code == 403


def test_a_nul_byte_in_a_board_path_is_not_found(serve):
    server = serve()
    for path in ("/web/board/%00", "/web/board/models/%00.html", "/web/board/..%2f%00"):
        got = requests.get(server.url + path, timeout=30)
        assert got.status_code == 404, (path, got.status_code, got.text[:200])


def test_only_the_allowed_hosts_are_answered(serve):
    server = serve("--allowed-host", "board.example.org", "--allowed-host", "127.0.0.1")
    assert requests.get(server.url + "/", timeout=30).status_code == 200
    forged = requests.get(server.url + "/web/signin", headers={"Host": "evil.example.com"}, timeout=30,
                          allow_redirects=False)
    assert forged.status_code == 400 and "evil.example.com" not in forged.headers.get("location", "")
    named = requests.get(server.url + "/web/signin", headers={"Host": "board.example.org"}, timeout=30)
    assert named.status_code == 200


def test_the_forged_host_answer_says_nosniff(serve):
    server = serve("--allowed-host", "127.0.0.1")
    forged = requests.get(server.url + "/v1/problems", headers={"Host": "evil.example.com"}, timeout=30)
    assert forged.status_code == 400 and forged.headers.get("X-Content-Type-Options") == "nosniff", forged.headers
    assert requests.get(server.url + "/healthz", timeout=30).headers.get("X-Content-Type-Options") == "nosniff"


def test_wrong_bearer_tokens_lock_the_address_out_as_sign_in_does(serve):
    """60 wrong bearer tokens from one address: 401 until the limit, then 429 with
    Retry-After for every wrong token; a right token from that address still passes (callers
    sharing an address keep their service) and does not clear the count; the sign-in form at
    that address waits; another address (behind the trusted proxy) is not locked; sign-in and
    /v1 count on one guard."""
    server = serve("--signin-attempts", "5", "--signin-lockout", "30", "--trusted-proxy", "127.0.0.1")
    mallory = {"X-Forwarded-For": "203.0.113.66"}
    answers = [server.call("GET", "/v1/problems", token="wrong-token-0123456789abcdef", headers=dict(mallory))
               for _ in range(60)]
    codes = [a.status_code for a in answers]
    assert codes[:4] == [401] * 4 and set(codes[4:]) == {429}, codes
    assert all(1 <= int(a.headers["Retry-After"]) <= 30 for a in answers[4:])
    assert answers[-1].headers["X-NeoCoder-Quota"] == "signin-attempts"
    right = server.call("GET", "/v1/problems", headers=dict(mallory))
    assert right.status_code == 200  # a caller sharing mallory's address keeps its service
    again = server.call("GET", "/v1/problems", token="wrong-token-0123456789abcdef", headers=dict(mallory))
    assert again.status_code == 429 and "Retry-After" in again.headers  # and the wrong tokens stay locked
    assert sign_in(requests.Session(), server.url, TOKEN, mallory).status_code == 429  # one guard for both paths
    alice = {"X-Forwarded-For": "198.51.100.7"}
    assert server.call("GET", "/v1/problems", headers=dict(alice)).status_code == 200
    # the sign-in form's wrong tokens count against /v1 too, and a right token never clears the count
    carol = {"X-Forwarded-For": "192.0.2.5"}
    for _ in range(4):
        assert sign_in(requests.Session(), server.url, "wrong-token-0123456789abcdef", carol).status_code == 401
    assert server.call("GET", "/v1/problems", token="wrong-token-0123456789abcdef",
                       headers=dict(carol)).status_code == 429
    dave = {"X-Forwarded-For": "192.0.2.6"}
    for _ in range(4):
        assert server.call("GET", "/v1/problems", token="wrong-token-0123456789abcdef",
                           headers=dict(dave)).status_code == 401
    assert server.call("GET", "/v1/problems", headers=dict(dave)).status_code == 200
    assert server.call("GET", "/v1/problems", token="wrong-token-0123456789abcdef",
                       headers=dict(dave)).status_code == 429  # the fifth wrong one: the count was kept


def test_a_pending_sign_in_survives_10000_anonymous_sign_in_forms(serve):
    from concurrent.futures import ThreadPoolExecutor

    server = serve()
    alice = requests.Session()
    csrf = signin_form(alice, server.url)

    def forms(count: int) -> set:
        with requests.Session() as anonymous:
            return {anonymous.get(server.url + "/web/signin", timeout=60).status_code for _ in range(count)}

    with ThreadPoolExecutor(8) as pool:
        assert set().union(*pool.map(forms, [1250] * 8)) == {200}
    signed = alice.post(server.url + "/web/signin", data={"csrf": csrf, "token": TOKEN}, allow_redirects=False,
                        timeout=30)
    assert signed.status_code == 303 and "neocoder_session" in signed.headers["set-cookie"], signed.text[:300]


def test_an_expired_sign_in_form_is_refused(serve):
    import time

    server = serve("--signin-form-seconds", "2")
    fresh = requests.Session()
    csrf = signin_form(fresh, server.url)
    assert fresh.post(server.url + "/web/signin", data={"csrf": csrf, "token": TOKEN}, allow_redirects=False,
                      timeout=30).status_code == 303
    stale = requests.Session()
    csrf = signin_form(stale, server.url)
    time.sleep(3)
    late = stale.post(server.url + "/web/signin", data={"csrf": csrf, "token": TOKEN},
                      cookies={"neocoder_login": csrf}, allow_redirects=False, timeout=30)
    assert late.status_code == 403 and "neocoder_session" not in late.headers.get("set-cookie", ""), late.text[:300]
    forged = csrf.split(".")
    forged[0] = str(int(forged[0]) + 3)  # a fresh time under the old MAC: refused
    forged = ".".join(forged)
    assert stale.post(server.url + "/web/signin", data={"csrf": forged, "token": TOKEN},
                      cookies={"neocoder_login": forged}, allow_redirects=False, timeout=30).status_code == 403
