# sketch 0
b0 = sch.get_block("pad_temp", func_name="conv2d_stride2_pad1")
b1 = sch.get_block("conv2d_nchw", func_name="conv2d_stride2_pad1")
b2 = sch.get_block("root", func_name="conv2d_stride2_pad1")
l3 = sch.sample_compute_location(b0, decision=0)
sch.compute_at(b0, l3, preserve_unit_loops=True)
