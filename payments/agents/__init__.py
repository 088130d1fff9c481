"""Agents (README "Agents"): programs that act for one customer of a platform under a policy.

- `management`: what the platform does with its agents (create, list, read, update, policy, delete).
- `credentials`: device codes, their redemption, and the agents' access tokens.
- `policy`: the policy's checks and merge; `usage`: what an agent has spent.
"""
