"""Stress: the REST enqueue path feeds a flow the ThreadedScheduler runs with several
Concurrent Tasks, while processors are stopped and started through the API. Every line
enqueued comes out exactly once, provenance agrees and the repository reopened agrees
with the queues (``tests/conservation_support.py``)."""

from __future__ import annotations

import json
import os
import random
import threading
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import ApiSettings
from flowcore.engine import Node
from flowcore.settings import EngineSettings
from tests.conservation_support import Document, Run, text_documents, text_flow, text_units

API = "/api/v1"
SettingsFactory = Callable[..., EngineSettings]
SEEDS = range(int(os.environ.get("CONSERVATION_ROUNDS", "1")))


@pytest.fixture
def runs() -> Iterator[list[Run]]:
    opened: list[Run] = []
    yield opened
    for run in opened:
        run.close()


def _feed_rest(documents: list[Document], rng: random.Random) -> Callable[[Node], None]:
    """Single enqueues (attributes in X-FlowFile-Attributes) and NDJSON batches, retried
    after a 503 (back pressure); processors stopped and started by run-status between."""

    def feed(node: Node) -> None:
        pause = threading.Event()
        with TestClient(create_app(node, ApiSettings())) as client:
            position = 0
            while position < len(documents):
                if rng.random() < 0.2:
                    name = rng.choice(["split", "merge_even", "merge_odd", "route"])
                    for state in ("STOPPED", "RUNNING"):
                        response = client.post(
                            f"{API}/processors/{name}/run-status", json={"state": state}
                        )
                        assert response.status_code == 200, response.text
                batch = documents[position : position + rng.randint(1, 3)]
                if len(batch) == 1:
                    response = client.post(
                        f"{API}/ports/in/flowfiles",
                        content=batch[0].content,
                        headers={"X-FlowFile-Attributes": json.dumps(batch[0].attributes)},
                    )
                else:
                    body = "".join(
                        json.dumps({"attributes": d.attributes, "content": d.content.decode()})
                        + "\n"
                        for d in batch
                    )
                    response = client.post(
                        f"{API}/ports/in/flowfiles/batch",
                        content=body,
                        headers={"Content-Type": "application/x-ndjson"},
                    )
                if response.status_code == 503:
                    pause.wait(0.002)
                    continue
                assert response.status_code == 201, response.text
                position += len(batch)

    return feed


@pytest.mark.parametrize("seed", SEEDS)
def test_rest_enqueues_into_a_running_flow_conserve_every_line(
    settings_factory: SettingsFactory, runs: list[Run], seed: int
) -> None:
    rng = random.Random(seed)
    documents = text_documents(rng, 20)
    settings = settings_factory(
        scheduler={"threads": 3}, queue={"swap_threshold": 6, "swap_batch_size": 3}
    )
    run = Run(settings, text_flow(), ("out_even", "out_odd"))
    runs.append(run)
    run.run(_feed_rest(documents, rng))
    run.check(documents, text_units)
