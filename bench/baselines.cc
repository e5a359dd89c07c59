// OpenBLAS and oneDNN calls for the benchmarks: SGEMM, and oneDNN's convolution primitive.
#include "bench/baselines.h"

#include <cblas.h>
#include <dnnl.h>
#include <dnnl_debug.h>
#include <omp.h>

#include <vector>

#include "support/error.h"

namespace kiln::bench {

void OpenBlasSgemm(const SgemmShape& s, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(s.m),
              static_cast<blasint>(s.n), static_cast<blasint>(s.k), 1.0f, a,
              static_cast<blasint>(s.k), b, static_cast<blasint>(s.n), 0.0f, c,
              static_cast<blasint>(s.n));
}

void OneDnnSgemm(const SgemmShape& s, const float* a, const float* b, float* c) {
  dnnl_status_t status = dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, a, s.k, b, s.n, 0.0f, c, s.n);
  KILN_CHECK(status == dnnl_success, ErrorKind::kRuntime,
             "dnnl_sgemm(" + std::to_string(s.m) + ", " + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + ") failed with status " + std::to_string(status));
}

namespace {

void CheckDnnl(dnnl_status_t status, const char* call) {
  KILN_CHECK(
      status == dnnl_success, ErrorKind::kRuntime,
      std::string("oneDNN convolution: ") + call + " failed with " + dnnl_status2str(status));
}

dnnl_memory_desc_t PlainDesc(const std::vector<int64_t>& dims, dnnl_format_tag_t tag) {
  dnnl_memory_desc_t md;
  CheckDnnl(
      dnnl_memory_desc_init_by_tag(&md, static_cast<int>(dims.size()), dims.data(), dnnl_f32, tag),
      "dnnl_memory_desc_init_by_tag");
  return md;
}

// The name of the format tag `md` has, among the ones a 4-D f32 convolution uses.
std::string LayoutName(const dnnl_memory_desc_t& md) {
  std::vector<int64_t> dims(md.dims, md.dims + md.ndims);
  for (dnnl_format_tag_t tag : {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c, dnnl_nChw8c, dnnl_oihw,
                                dnnl_OIhw16i16o, dnnl_OIhw8i8o, dnnl_Ohwi16o, dnnl_hwio}) {
    dnnl_memory_desc_t candidate;
    if (dnnl_memory_desc_init_by_tag(&candidate, md.ndims, dims.data(), dnnl_f32, tag) ==
            dnnl_success &&
        dnnl_memory_desc_equal(&candidate, &md)) {
      return dnnl_fmt_tag2str(tag);
    }
  }
  return "other";
}

}  // namespace

struct OneDnnConv2d::Impl {
  Conv2dShape shape;
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t conv = nullptr;
  // The primitive's own memories (src, weights, dst, scratchpad) and the plain layouts.
  dnnl_memory_t src = nullptr, weights = nullptr, dst = nullptr, scratchpad = nullptr;
  dnnl_memory_desc_t src_plain{}, weights_plain{}, dst_plain{};

  ~Impl() {
    for (dnnl_memory_t m : {src, weights, dst, scratchpad}) {
      if (m != nullptr) dnnl_memory_destroy(m);
    }
    if (conv != nullptr) dnnl_primitive_destroy(conv);
    if (pd != nullptr) dnnl_primitive_desc_destroy(pd);
    if (stream != nullptr) dnnl_stream_destroy(stream);
    if (engine != nullptr) dnnl_engine_destroy(engine);
  }

  // Copies `from` (a plain buffer of layout `plain`) into `to`, reordering when they differ;
  // or, with to_plain, `to`'s data out into the plain buffer.
  void Reorder(const dnnl_memory_desc_t& plain, void* buffer, dnnl_memory_t own, bool to_plain) {
    const dnnl_memory_desc_t* own_md = nullptr;
    CheckDnnl(dnnl_memory_get_memory_desc(own, &own_md), "dnnl_memory_get_memory_desc");
    dnnl_memory_t user = nullptr;
    CheckDnnl(dnnl_memory_create(&user, &plain, engine, buffer), "dnnl_memory_create");
    dnnl_memory_t from = to_plain ? own : user;
    dnnl_memory_t to = to_plain ? user : own;
    dnnl_primitive_desc_t reorder_pd = nullptr;
    dnnl_primitive_t reorder = nullptr;
    const dnnl_memory_desc_t* from_md = to_plain ? own_md : &plain;
    const dnnl_memory_desc_t* to_md = to_plain ? &plain : own_md;
    dnnl_status_t status =
        dnnl_reorder_primitive_desc_create(&reorder_pd, from_md, engine, to_md, engine, nullptr);
    if (status == dnnl_success) status = dnnl_primitive_create(&reorder, reorder_pd);
    if (status == dnnl_success) {
      dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
      status = dnnl_primitive_execute(reorder, stream, 2, args);
    }
    if (status == dnnl_success) status = dnnl_stream_wait(stream);
    if (reorder != nullptr) dnnl_primitive_destroy(reorder);
    if (reorder_pd != nullptr) dnnl_primitive_desc_destroy(reorder_pd);
    dnnl_memory_destroy(user);
    CheckDnnl(status, "reorder");
  }
};

OneDnnConv2d::OneDnnConv2d(const Conv2dShape& s, ConvLayout layout)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.shape = s;
  CheckDnnl(dnnl_engine_create(&m.engine, dnnl_cpu, 0), "dnnl_engine_create");
  CheckDnnl(dnnl_stream_create(&m.stream, m.engine, dnnl_stream_default_flags),
            "dnnl_stream_create");
  m.src_plain = PlainDesc({s.batch, s.in_channels, s.height, s.width}, dnnl_nchw);
  m.weights_plain = PlainDesc({s.out_channels, s.in_channels, s.kernel_h, s.kernel_w}, dnnl_oihw);
  m.dst_plain = PlainDesc({s.batch, s.out_channels, s.out_height(), s.out_width()}, dnnl_nchw);
  dnnl_memory_desc_t src_md = m.src_plain, weights_md = m.weights_plain, dst_md = m.dst_plain;
  if (layout == ConvLayout::kBlocked) {
    src_md = PlainDesc({s.batch, s.in_channels, s.height, s.width}, dnnl_format_tag_any);
    weights_md =
        PlainDesc({s.out_channels, s.in_channels, s.kernel_h, s.kernel_w}, dnnl_format_tag_any);
    dst_md =
        PlainDesc({s.batch, s.out_channels, s.out_height(), s.out_width()}, dnnl_format_tag_any);
  }
  dnnl_convolution_desc_t desc;
  dnnl_dims_t strides = {s.stride_h, s.stride_w};
  dnnl_dims_t padding = {s.pad_h, s.pad_w};
  CheckDnnl(dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference,
                                               dnnl_convolution_direct, &src_md, &weights_md,
                                               nullptr, &dst_md, strides, padding, padding),
            "dnnl_convolution_forward_desc_init");
  // The scratchpad is passed at execution, so that its memory is allocated once, here.
  dnnl_primitive_attr_t attr = nullptr;
  CheckDnnl(dnnl_primitive_attr_create(&attr), "dnnl_primitive_attr_create");
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  dnnl_status_t status = dnnl_primitive_desc_create(&m.pd, &desc, attr, m.engine, nullptr);
  dnnl_primitive_attr_destroy(attr);
  CheckDnnl(status, "dnnl_primitive_desc_create");
  CheckDnnl(dnnl_primitive_create(&m.conv, m.pd), "dnnl_primitive_create");
  auto make = [&](dnnl_query_t what, dnnl_memory_t* memory) {
    const dnnl_memory_desc_t* md = dnnl_primitive_desc_query_md(m.pd, what, 0);
    CheckDnnl(dnnl_memory_create(memory, md, m.engine, DNNL_MEMORY_ALLOCATE), "dnnl_memory_create");
  };
  make(dnnl_query_src_md, &m.src);
  make(dnnl_query_weights_md, &m.weights);
  make(dnnl_query_dst_md, &m.dst);
  make(dnnl_query_scratchpad_md, &m.scratchpad);
}

OneDnnConv2d::~OneDnnConv2d() = default;

void OneDnnConv2d::SetInputs(const float* x, const float* w) {
  // Reorder only reads the plain buffers.
  impl_->Reorder(impl_->src_plain, const_cast<float*>(x), impl_->src, false);
  impl_->Reorder(impl_->weights_plain, const_cast<float*>(w), impl_->weights, false);
}

void OneDnnConv2d::Run() {
  Impl& m = *impl_;
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, m.src},
                             {DNNL_ARG_WEIGHTS, m.weights},
                             {DNNL_ARG_DST, m.dst},
                             {DNNL_ARG_SCRATCHPAD, m.scratchpad}};
  CheckDnnl(dnnl_primitive_execute(m.conv, m.stream, 4, args), "dnnl_primitive_execute");
  CheckDnnl(dnnl_stream_wait(m.stream), "dnnl_stream_wait");
}

void OneDnnConv2d::GetOutput(float* y) { impl_->Reorder(impl_->dst_plain, y, impl_->dst, true); }

std::string OneDnnConv2d::Description() const {
  const char* impl = nullptr;
  dnnl_primitive_desc_query(impl_->pd, dnnl_query_impl_info_str, 0, &impl);
  const dnnl_memory_desc_t* src = dnnl_primitive_desc_query_md(impl_->pd, dnnl_query_src_md, 0);
  const dnnl_memory_desc_t* weights =
      dnnl_primitive_desc_query_md(impl_->pd, dnnl_query_weights_md, 0);
  return std::string(impl ? impl : "unknown") + ", src " + LayoutName(*src) + ", weights " +
         LayoutName(*weights);
}

void SetOpenBlasThreads(int threads) { openblas_set_num_threads(threads); }

void SetOpenMpThreads(int threads) { omp_set_num_threads(threads); }

std::string OpenBlasVersion() {
  const char* config = openblas_get_config();
  return config ? config : "OpenBLAS";
}

std::string OneDnnVersion() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + " (" +
         (v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other") + " runtime)";
}

}  // namespace kiln::bench
