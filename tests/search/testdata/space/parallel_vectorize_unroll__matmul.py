# sketch 0
b0 = sch.get_block("C", func_name="matmul")
b1 = sch.get_block("root", func_name="matmul")
sch.annotate(b1, ann_key="meta_schedule.parallel", ann_val=32)
sch.annotate(b1, ann_key="meta_schedule.vectorize", ann_val=64)
v2 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=2)
sch.annotate(b1, ann_key="meta_schedule.unroll_explicit", ann_val=v2)
