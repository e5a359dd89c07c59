# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  l4, l5 = sch.split(loop=l1, factors=[None, 4], preserve_unit_iters=True, disable_predication=False)
  b6 = sch.cache_read(block=b0, read_buffer_index=0, storage_scope="global")
  sch.compute_at(block=b6, loop=l4, preserve_unit_loops=False, index=-1)
  b7 = sch.cache_write(block=b0, write_buffer_index=0, storage_scope="global")
  sch.reverse_compute_at(block=b7, loop=l4, preserve_unit_loops=True, index=-1)
  sch.storage_align(block=b6, buffer_index=0, axis=0, factor=8, offset=1)
  sch.set_scope(block=b7, buffer_index=0, storage_scope="global")
