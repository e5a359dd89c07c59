// The per-thread workspace pool of the C target's heap buffers, as C source.
#include "codegen/c/c_workspace.h"

namespace kiln::codegen {

// Each block carries a header just below the pointer handed out: the malloc'd base and the
// usable bytes (align >= 16 leaves room for both). A pool holds up to KILN_WS_SLOTS blocks;
// an allocation takes the smallest one large and aligned enough, a free keeps the block in an
// empty slot or in place of a smaller one.
const char kCWorkspaceHelpers[] = R"(#include <pthread.h>
#define KILN_WS_SLOTS 8
#define KILN_WS_SHARED __attribute__((weak, visibility("hidden")))
typedef struct kiln_ws_pool {
  void* blocks[KILN_WS_SLOTS];
  struct kiln_ws_pool* prev;
  struct kiln_ws_pool* next;
} kiln_ws_pool_t;
KILN_WS_SHARED pthread_once_t kiln_ws_once = PTHREAD_ONCE_INIT;
KILN_WS_SHARED pthread_key_t kiln_ws_key;
KILN_WS_SHARED int kiln_ws_ready = 0;
/* Every thread's pool, so that unloading frees the pools of threads that outlive it. */
KILN_WS_SHARED pthread_mutex_t kiln_ws_mutex = PTHREAD_MUTEX_INITIALIZER;
KILN_WS_SHARED kiln_ws_pool_t* kiln_ws_pools = NULL;
KILN_WS_SHARED size_t kiln_ws_block_bytes(void* block) { return ((size_t*)block)[-1]; }
KILN_WS_SHARED void kiln_ws_block_release(void* block) { free(((void**)block)[-2]); }
KILN_WS_SHARED void kiln_ws_pool_free(kiln_ws_pool_t* pool) {
  for (int i = 0; i < KILN_WS_SLOTS; ++i) {
    if (pool->blocks[i] != NULL) kiln_ws_block_release(pool->blocks[i]);
  }
  free(pool);
}
/* A thread's exit. */
KILN_WS_SHARED void kiln_ws_pool_release(void* arg) {
  kiln_ws_pool_t* pool = (kiln_ws_pool_t*)arg;
  pthread_mutex_lock(&kiln_ws_mutex);
  if (pool->prev != NULL) pool->prev->next = pool->next;
  else kiln_ws_pools = pool->next;
  if (pool->next != NULL) pool->next->prev = pool->prev;
  pthread_mutex_unlock(&kiln_ws_mutex);
  kiln_ws_pool_free(pool);
}
KILN_WS_SHARED void kiln_ws_create(void) {
  kiln_ws_ready = pthread_key_create(&kiln_ws_key, kiln_ws_pool_release) == 0;
}
/* Unloading: no kernel of the library runs any more, so every pool can go. */
KILN_WS_SHARED __attribute__((destructor)) void kiln_ws_unload(void) {
  if (!kiln_ws_ready) return;
  kiln_ws_ready = 0;
  pthread_setspecific(kiln_ws_key, NULL);
  pthread_key_delete(kiln_ws_key);
  pthread_mutex_lock(&kiln_ws_mutex);
  while (kiln_ws_pools != NULL) {
    kiln_ws_pool_t* pool = kiln_ws_pools;
    kiln_ws_pools = pool->next;
    kiln_ws_pool_free(pool);
  }
  pthread_mutex_unlock(&kiln_ws_mutex);
}
KILN_WS_SHARED kiln_ws_pool_t* kiln_ws_pool(void) {
  pthread_once(&kiln_ws_once, kiln_ws_create);
  if (!kiln_ws_ready) return NULL;
  kiln_ws_pool_t* pool = (kiln_ws_pool_t*)pthread_getspecific(kiln_ws_key);
  if (pool == NULL) {
    pool = (kiln_ws_pool_t*)calloc(1, sizeof *pool);
    if (pool == NULL) return NULL;
    if (pthread_setspecific(kiln_ws_key, pool) != 0) {
      free(pool);
      return NULL;
    }
    pthread_mutex_lock(&kiln_ws_mutex);
    pool->next = kiln_ws_pools;
    if (kiln_ws_pools != NULL) kiln_ws_pools->prev = pool;
    kiln_ws_pools = pool;
    pthread_mutex_unlock(&kiln_ws_mutex);
  }
  return pool;
}
KILN_WS_SHARED __attribute__((malloc, alloc_align(1), alloc_size(2), returns_nonnull)) void*
kiln_alloc(size_t align, size_t bytes) {
  size_t rounded = (bytes + align - 1) / align * align;
  kiln_ws_pool_t* pool = kiln_ws_pool();
  if (pool != NULL) {
    int best = -1;
    for (int i = 0; i < KILN_WS_SLOTS; ++i) {
      void* block = pool->blocks[i];
      if (block == NULL || kiln_ws_block_bytes(block) < rounded || (uintptr_t)block % align != 0) {
        continue;
      }
      if (best < 0 || kiln_ws_block_bytes(block) < kiln_ws_block_bytes(pool->blocks[best])) best = i;
    }
    if (best >= 0) {
      void* block = pool->blocks[best];
      pool->blocks[best] = NULL;
      return block;
    }
  }
  char* base = (char*)aligned_alloc(align, align + rounded);
  if (base == NULL) abort();
  char* block = base + align;
  ((void**)block)[-2] = base;
  ((size_t*)block)[-1] = rounded;
  return block;
}
KILN_WS_SHARED void kiln_free(void* block) {
  kiln_ws_pool_t* pool = kiln_ws_pool();
  if (pool != NULL) {
    int slot = -1;
    for (int i = 0; i < KILN_WS_SLOTS && (slot < 0 || pool->blocks[slot] != NULL); ++i) {
      if (pool->blocks[i] == NULL || slot < 0 ||
          kiln_ws_block_bytes(pool->blocks[i]) < kiln_ws_block_bytes(pool->blocks[slot])) {
        slot = i;
      }
    }
    if (pool->blocks[slot] == NULL) {
      pool->blocks[slot] = block;
      return;
    }
    if (kiln_ws_block_bytes(pool->blocks[slot]) < kiln_ws_block_bytes(block)) {
      void* evicted = pool->blocks[slot];
      pool->blocks[slot] = block;
      block = evicted;
    }
  }
  kiln_ws_block_release(block);
}
)";

}  // namespace kiln::codegen
