# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="D", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  sch.bind(loop=l1, thread_axis="blockIdx.x")
  sch.bind(loop=l2, thread_axis="threadIdx.x")
