"""`netpress.agents.openai` against a fake OpenAI-compatible server on loopback: a
`http.server` whose chat completions are the K8s scripted baseline's replies to the messages it
is sent, so an episode played through the endpoint must score as the baseline does."""

from __future__ import annotations

import json
import pickle
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import netpress

KEY = "sk-test-7f3a"


class FakeOpenAI(BaseHTTPRequestHandler):
    """`POST /v1/chat/completions`: the baseline's reply, with token counts; 401 to any key but
    `KEY`. Every request is kept for the test to read."""

    requests: list[dict] = []
    baseline = staticmethod(netpress.agents.baseline("k8s"))

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            refusal = {"message": "Incorrect API key provided", "type": "invalid_request_error"}
            return self.answer(401, {"error": refusal})
        reply = FakeOpenAI.baseline(body["messages"])
        choice = {"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
        self.answer(200, {"id": "c1", "object": "chat.completion", "model": body["model"], "choices": [choice],
                          "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})

    def answer(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:  # keep pytest's output clean
        pass


@pytest.fixture
def endpoint():
    FakeOpenAI.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_an_endpoint_agent_plays_as_the_agent_behind_it(endpoint, monkeypatch):
    monkeypatch.setenv("NETPRESS_TEST_KEY", KEY)
    agent = netpress.agents.openai(endpoint, "fake-model", api_key_env="NETPRESS_TEST_KEY", temperature=0.0)
    ids = [f"k8s-v1-L{level}-s{seed}-i0" for level in (1, 2) for seed in (0, 1)]
    def played(records: list[dict]) -> list[tuple]:
        return [([t["reply"] for t in r["turns"]], r["finish"], r["score"]["correct"], r["score"]["safe"])
                for r in records]

    assert played(netpress.evaluate(ids, agent)) == played(netpress.evaluate(ids))
    first = FakeOpenAI.requests[0]
    assert first["path"] == "/v1/chat/completions" and first["auth"] == f"Bearer {KEY}"
    assert first["body"]["model"] == "fake-model" and first["body"]["temperature"] == 0.0
    assert first["body"]["messages"][0]["role"] == "user"
    assert agent.info()["model"] == "fake-model"


def test_the_key_stays_in_the_environment(endpoint, monkeypatch):
    monkeypatch.setenv("NETPRESS_TEST_KEY", KEY)
    agent = netpress.agents.openai(endpoint, "fake-model", api_key_env="NETPRESS_TEST_KEY")
    agent([{"role": "user", "content": netpress.make("k8s-v1-L1-s0-i0").reset()[0]}])
    shipped = pickle.dumps(agent)
    assert KEY.encode() not in shipped
    monkeypatch.setenv("NETPRESS_TEST_KEY", "sk-other")  # another process's environment
    with pytest.raises(netpress.agents.EndpointError) as refused:
        pickle.loads(shipped)([{"role": "user", "content": "hello"}])
    assert refused.value.fatal and "401" in str(refused.value) and "sk-other" not in str(refused.value)


def test_a_refused_key_stops_the_episode(endpoint, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (record,) = netpress.evaluate(["k8s-v1-L1-s0-i0"], netpress.agents.openai(endpoint, "fake-model"))
    assert FakeOpenAI.requests[0]["auth"] is None  # no key in the environment, none sent
    assert record["finish"] == "stopped" and len(FakeOpenAI.requests) == 1
    assert "401" in record["turns"][0]["error"]
