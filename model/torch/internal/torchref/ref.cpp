// The reference forward pass of zerokit's network written directly against
// libtorch's C++ API, to measure what the Go side of model.Net.Forward adds.
// It mirrors model/net.go's core.forward op for op.

#include <torch/torch.h>

#include <cstring>
#include <exception>

namespace {

using torch::Tensor;

// The same argument arrays model passes: stride and dilation {1, 1},
// padding {1, 1} for 3x3 and {0, 0} for 1x1 convolutions.
const int64_t kOnes[2] = {1, 1};
const int64_t kZeros[2] = {0, 0};

Tensor conv(const Tensor &x, const Tensor &w, const Tensor &b, bool same) {
  return torch::conv2d(x, w, b, torch::IntArrayRef(kOnes, 2),
                       torch::IntArrayRef(same ? kOnes : kZeros, 2), torch::IntArrayRef(kOnes, 2), 1);
}

struct Params {
  Tensor **p;
  int i = 0;
  Tensor &next() { return *p[i++]; }
};

Tensor bn(const Tensor &x, Params &ps) {
  Tensor &g = ps.next(), &b = ps.next(), &m = ps.next(), &v = ps.next();
  return torch::batch_norm(x, g, b, m, v, false, 0.1, 1e-5, false);
}

}  // namespace

extern "C" int zk_ref_forward(void **params, int nparams, int blocks, int spatial, int maxpool,
                              const float *obs, int64_t n, int64_t planes, int64_t h, int64_t w,
                              float *logits, int64_t actions, float *values, char *err, int errlen) {
  try {
    torch::NoGradGuard guard;
    Params ps{reinterpret_cast<Tensor **>(params)};
    Tensor x = torch::empty({n, planes, h, w}, torch::kFloat32);
    std::memcpy(x.data_ptr(), obs, sizeof(float) * n * planes * h * w);

    Tensor t = conv(x, ps.next(), Tensor(), true);
    t = bn(t, ps).relu_();
    for (int b = 0; b < blocks; b++) {
      Tensor r = conv(t, ps.next(), Tensor(), true);
      r = bn(r, ps).relu_();
      r = conv(r, ps.next(), Tensor(), true);
      r = bn(r, ps);
      r.add_(t).relu_();
      t = r;
    }

    Tensor p = conv(t, ps.next(), Tensor(), false);
    p = bn(p, ps).relu_();
    Tensor pol;
    if (!spatial) {
      Tensor &fw = ps.next(), &fb = ps.next();
      pol = torch::linear(p.flatten(1), fw, fb);
    } else {
      Tensor &cw = ps.next(), &cb = ps.next();
      pol = conv(p, cw, cb, false).flatten(1);
      if (pol.size(1) < actions) {
        Tensor &ew = ps.next(), &eb = ps.next();
        pol = torch::cat({pol, torch::linear(p.mean({2, 3}), ew, eb)}, 1);
      }
    }

    Tensor v = conv(t, ps.next(), Tensor(), false);
    v = bn(v, ps).relu_();
    Tensor pooled = v.mean({2, 3});
    if (maxpool) pooled = torch::cat({pooled, v.amax({2, 3})}, 1);
    Tensor &w1 = ps.next(), &b1 = ps.next(), &w2 = ps.next(), &b2 = ps.next();
    Tensor hid = torch::linear(pooled, w1, b1).relu_();
    Tensor val = torch::linear(hid, w2, b2).tanh_();

    if (ps.i != nparams) throw std::runtime_error("parameter count mismatch");
    if (pol.size(1) != actions) throw std::runtime_error("action count mismatch");
    std::memcpy(logits, pol.contiguous().data_ptr(), sizeof(float) * n * actions);
    std::memcpy(values, val.contiguous().data_ptr(), sizeof(float) * n);
    return 0;
  } catch (const std::exception &e) {
    std::strncpy(err, e.what(), errlen - 1);
    err[errlen - 1] = 0;
    return 1;
  }
}
