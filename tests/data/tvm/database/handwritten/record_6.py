# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 3], preserve_unit_iters=False, disable_predication=False)
  l6, l7 = sch.split(loop=l2, factors=[1, 16], preserve_unit_iters=True, disable_predication=False)
  b8 = sch.get_sblock(name="D", func_name="main")
  l9, l10 = sch.get_loops(block=b8)
  l11 = sch.fuse(l9, l10, preserve_unit_iters=False)
