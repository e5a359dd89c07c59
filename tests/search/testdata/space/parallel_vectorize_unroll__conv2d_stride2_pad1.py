# sketch 0
b0 = sch.get_block("pad_temp", func_name="conv2d_stride2_pad1")
b1 = sch.get_block("conv2d_nchw", func_name="conv2d_stride2_pad1")
b2 = sch.get_block("root", func_name="conv2d_stride2_pad1")
sch.annotate(b2, ann_key="meta_schedule.parallel", ann_val=32)
sch.annotate(b2, ann_key="meta_schedule.vectorize", ann_val=64)
v3 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=2)
sch.annotate(b2, ann_key="meta_schedule.unroll_explicit", ann_val=v3)
