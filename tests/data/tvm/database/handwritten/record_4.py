# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l3, factors=[4, None], preserve_unit_iters=True, disable_predication=False)
  b6 = sch.rfactor(loop=l5, factor_axis=0)
  l7, l8, l9, l10 = sch.get_loops(block=b6)
  sch.parallel(loop=l7)
