"""The in-memory store the semantics tests use behaves as the session's real keyed state.

Random puts, deletes and commits run against ``DictStore`` and against a real
``KeyedState`` over the LMDB FlowFile repository (its staged writes committed through
``FlowFileRepository.commit`` when the sequence says so); after every step both answer
``get``, ``get_many`` and ``scan`` alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowcore.clock import ManualClock
from flowcore.repository import RepositoryUpdate
from flowcore.session.keyed_state import KeyedState
from flowcore.settings import EngineSettings
from repos.lmdb_flowfile import LmdbFlowFileRepository
from tests.processors.entities.entities_helpers import DictStore

KEYS = [b"m/a", b"m/b", b"m/c", b"v/a", b"v/ab", b"c"]
COMPONENT = "merge"

operations = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.sampled_from(KEYS), st.binary(max_size=4)),
        st.tuples(st.just("delete"), st.sampled_from(KEYS), st.just(b"")),
        st.tuples(st.just("commit"), st.just(b""), st.just(b"")),
    ),
    max_size=30,
)


@pytest.fixture
def repository(tmp_path: Path) -> Iterator[LmdbFlowFileRepository]:
    repo = LmdbFlowFileRepository(EngineSettings(data_dir=tmp_path), ManualClock())
    yield repo
    repo.close()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(operations)
def test_dict_store_answers_as_the_real_keyed_state(
    repository: LmdbFlowFileRepository, steps: list[tuple[str, bytes, bytes]]
) -> None:
    # The repository outlives one example: start each from an empty store.
    repository.commit(RepositoryUpdate(keyed_state={COMPONENT: dict.fromkeys(KEYS)}))
    real = KeyedState(COMPONENT, repository)
    double = DictStore()
    for action, key, value in steps:
        if action == "put":
            real.put(key, value)
            double.put(key, value)
        elif action == "delete":
            real.delete(key)
            double.delete(key)
        else:
            repository.commit(RepositoryUpdate(keyed_state={COMPONENT: real.take_changes()}))
        for key_ in KEYS:
            assert real.get(key_) == double.get(key_)
        assert real.get_many(KEYS) == double.get_many(KEYS)
        for prefix in (b"", b"m/", b"v/a", b"x"):
            assert list(real.scan(prefix)) == list(double.scan(prefix))
