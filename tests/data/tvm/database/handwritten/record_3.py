# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="D", func_name="main")
  b1, = sch.get_producers(block=b0)
  b2, = sch.get_consumers(block=b1)
  l3 = sch.sample_compute_location(block=b1, decision=0)
  sch.compute_at(block=b1, loop=l3, preserve_unit_loops=False, index=-1)
  l4 = sch.add_unit_loop(block_or_loop=b2)
