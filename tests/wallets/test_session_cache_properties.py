"""The session cache's bookkeeping, without a database: whatever the interleaving of queries (their
generation read, later what they found remembered), forgets and reconnects, an entry is seen only
if its query began after the last change, and is seen if nothing changed since."""

from __future__ import annotations

import datetime as dt
import os
import uuid

from hypothesis import given
from hypothesis import strategies as st

from wallets import session_cache

ACCOUNTS = [uuid.UUID(int=n) for n in range(1, 4)]
KEY = "02" + "ab" * 32
EXPIRES = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)

steps = st.lists(
    st.one_of(
        st.tuples(st.just("begin"), st.integers(0, 4), st.sampled_from(ACCOUNTS)),
        st.tuples(st.just("remember"), st.integers(0, 4), st.none()),
        st.tuples(st.just("forget"), st.none(), st.sampled_from([*ACCOUNTS, None])),
        st.tuples(st.just("reconnect"), st.none(), st.none()),
    ),
    max_size=40,
)


@given(steps)
def test_an_entry_is_seen_only_if_its_query_began_after_the_last_change(steps):
    before = session_cache._listening_pid
    session_cache._listening(os.getpid())
    try:
        began: dict[int, tuple[uuid.UUID, int, int]] = {}  # query → (account, step, generation read)
        last_change = dict.fromkeys(ACCOUNTS, 0)  # account → step of the last change that reached it
        any_change = 0
        seen_since: dict[uuid.UUID, int] = {}  # account → step its remembered query began
        for step, (action, query, account) in enumerate(steps, start=1):
            if action == "begin":
                began[query] = (account, step, session_cache.generation())
            elif action == "remember" and query in began:
                account, start, generation = began.pop(query)
                session_cache.remember(account, KEY, EXPIRES, generation)
                if start > any_change:
                    seen_since[account] = start
            elif action in ("forget", "reconnect"):
                if action == "forget":
                    session_cache.forget(account)
                else:
                    session_cache._listening(os.getpid())
                any_change = step
                for each in ACCOUNTS if account is None else [account]:
                    last_change[each] = step
                    seen_since.pop(each, None)
            for each in ACCOUNTS:
                seen = session_cache.expiry(each, KEY) is not None
                assert seen == (each in seen_since), (step, action, each)
                assert not seen or seen_since[each] > last_change[each]
    finally:
        session_cache._listening(before)
