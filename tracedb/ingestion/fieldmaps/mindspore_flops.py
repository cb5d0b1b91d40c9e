"""MindSpore FLOPs files (Ascend profiler, ``profiler/`` folder): ``flops_summary_{rank}.json`` and
``flops_scope_{rank}.json`` → ``profiler_flops_summary`` / ``profiler_flops_scope``.

MindSpore 1.x (``mindspore/profiler/parser/flops_parser.py`` FlopsParser) writes
``{"FLOPs": MFLOP, "FLOPS": GFLOPS, "FLOPS_Utilization": %}`` and the scope Sankey diagram
``{"data": {"nodes": [{"name"}], "links": [{"source", "target", "value"}]}, "max_scope_num": n}``;
MindSpore 2.x (``AscendFlopsGenerator``) writes ``{"cube_FLOPs", "cube_FLOPS", "vec_FLOPs",
"vec_FLOPS"}`` instead (mindinsight tests/utils/resource/profiler/flops_summary_0.json, the 1.x
form, is the sample the tests use).
"""
from . import Field

# flops_summary_{rank}.json key → profiler_flops_summary column (numbers kept as written)
SUMMARY = {
    "total_mflop": Field(("FLOPs",), "ratio", since="MindSpore 1.3"),
    "avg_op_gflops": Field(("FLOPS",), "ratio", since="MindSpore 1.3"),
    "utilization_pct": Field(("FLOPS_Utilization",), "ratio", since="MindSpore 1.3"),
    "cube_mflop": Field(("cube_FLOPs",), "ratio", since="MindSpore 2.2"),
    "cube_gflops": Field(("cube_FLOPS",), "ratio", since="MindSpore 2.2"),
    "vector_mflop": Field(("vec_FLOPs",), "ratio", since="MindSpore 2.2"),
    "vector_gflops": Field(("vec_FLOPS",), "ratio", since="MindSpore 2.2"),
}

# flops_scope_{rank}.json
SCOPE_DATA = Field(("data",), "json")
SCOPE_LINKS = Field(("links",), "json")
LINK_SOURCE = Field(("source",), "text")
LINK_TARGET = Field(("target",), "text")
LINK_VALUE = Field(("value",), "ratio")
MAX_SCOPE_NUM = Field(("max_scope_num",), "ratio")
