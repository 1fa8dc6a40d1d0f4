"""UI-free core: parsing, record index, discovery, search index, memory and briefs."""
