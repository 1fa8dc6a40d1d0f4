"""Usage pictures: activity per day per project and agent, tokens per day and model, and their
cost priced from the genai-prices package's bundled price table (never fetched at run time).

Reads the catalog's activity rows (core/catalog/activity.py) and the session map, nothing else.
May import: core's foundation modules and core.catalog (beside live/, brief/, demo and export/).
"""
