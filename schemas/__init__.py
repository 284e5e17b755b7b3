"""Versioned contracts: the event format (JSON Schema), the Arrow schema of every table
(``schemas.tables``, ``schemas.scoring``, all of them by name in ``schemas.catalog``) and the
game's vocabulary (``schemas.vocabulary``). Importing the package loads nothing heavy.
"""
