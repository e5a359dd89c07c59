// The C target's heap buffers: the definitions of kiln_alloc / kiln_free that a kernel with a
// buffer too large for its stack calls. They keep freed blocks in a small per-thread pool for
// the next call. From malloc, a large block is fresh pages on every call, which the kernel
// faults in and the OS zeroes: a 4 MiB packing buffer of a 1024^3 matmul candidate cost it
// a third of its time, and more or less from one process to the next as malloc's thresholds
// moved, so that tuning recorded it at 250 GFLOP/s and a rebuild ran at 160.
//
// The definitions are weak and hidden: the kernels of a compiled model, built as separate
// objects and linked into one library, share one pool, and nothing leaves the library. A
// thread's blocks are freed when it exits; unloading the library deletes the pool's thread
// key, so that no thread runs a destructor from unmapped code afterwards, and frees every
// thread's pool (the pools are listed, under a mutex taken only when a thread's pool is made
// or freed): no kernel of the library runs once it is unloaded.
#pragma once

namespace kiln::codegen {

// C source (file scope, after <stdint.h> and <stdlib.h>) defining
//   void* kiln_alloc(size_t align, size_t bytes);  // align a power of two, at least 16
//   void kiln_free(void* block);
extern const char kCWorkspaceHelpers[];

}  // namespace kiln::codegen
