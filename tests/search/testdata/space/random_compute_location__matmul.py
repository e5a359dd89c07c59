# sketch 0
b0 = sch.get_block("C", func_name="matmul")
b1 = sch.get_block("root", func_name="matmul")
