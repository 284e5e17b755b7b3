"""The Dagster deployment of the run plan (``pipelines.definitions``): assets, resources and
asset checks, laid out like Dagster's ``defs/`` folder."""
