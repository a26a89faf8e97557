"""A graph that changes: new graphs made from an old one's blocks plus added or removed edges and
vertices (``Graph.add_edges`` and friends), rebuilding only the ranks the change touches."""
