"""The association's live results service: accounts and roles, table tokens, audit, the event registry.

Orchestration-level state that is not derived from the hand logs: who may write which results
(accounts with argon2-hashed passwords, table tokens), and the registry of an event day. It is kept
in the store's ``service/`` folder, never in its tables (``gdan sql`` cannot read it), and it imports
no app and not the pipeline.
"""
