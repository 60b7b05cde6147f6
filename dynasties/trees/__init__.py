"""Family trees (issue 6): plain node/edge data first (:mod:`.data`), DOT text second (:mod:`.dot`),
the ``dot`` binary last (:mod:`.render`, which also caches renders by a version of the data).

    tree = build_tree(rows, kind="descendants", focus=12, generations=3)   # pure, from load_rows()
    text = to_dot(tree, url="/admin/dynasties/character/{id}/change/")     # pure, testable text
    out = render_tree(campaign=c, kind="campaign", fmt="svg")              # bytes, cached
"""
