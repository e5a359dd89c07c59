# sketch 0
b0 = sch.get_block("pad_temp", func_name="conv2d_stride2_pad1")
b1 = sch.get_block("conv2d_nchw", func_name="conv2d_stride2_pad1")
b2 = sch.get_block("root", func_name="conv2d_stride2_pad1")
