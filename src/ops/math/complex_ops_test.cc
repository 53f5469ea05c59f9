#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

using C64 = std::complex<float>;
using C128 = std::complex<double>;

Tensor Complex64(const std::vector<C64>& v, Shape shape) {
  Tensor t(DType::kComplex64, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) {
    t.data<float>()[2 * i] = v[i].real();
    t.data<float>()[2 * i + 1] = v[i].imag();
  }
  return t;
}
Tensor Complex64(const std::vector<C64>& v) { return Complex64(v, Shape({static_cast<int64_t>(v.size())})); }

C64 At64(const Tensor& t, int64_t i) { return {t.data<float>()[2 * i], t.data<float>()[2 * i + 1]}; }

StatusOr<Tensor> RunOp(const std::string& op, std::vector<Tensor> inputs) {
  const DType t = inputs[0].dtype();
  TFHOST_ASSIGN_OR_RETURN(auto out, RunSingleOp(op, std::move(inputs), {{"T", MakeAttr(t)}}));
  return out[0];
}

void ExpectNear(C64 got, C64 want, float tol = 1e-6f) {
  EXPECT_NEAR(got.real(), want.real(), tol) << "real part";
  EXPECT_NEAR(got.imag(), want.imag(), tol) << "imaginary part";
}

TEST(ComplexOpsTest, ExpOnTheUnitCircleAndRealAxis) {
  // exp(i pi/2) = i, exp(i pi) = -1, exp(1) = e, exp(0) = 1,
  // exp(ln 2 + i pi/4) = sqrt(2) + sqrt(2) i.
  const float pi = 3.14159265358979f;
  auto out = RunOp("Exp", {Complex64({{0, pi / 2}, {0, pi}, {1, 0}, {0, 0}, {std::log(2.0f), pi / 4}})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->dtype(), DType::kComplex64);
  ExpectNear(At64(*out, 0), {0, 1});
  ExpectNear(At64(*out, 1), {-1, 0});
  ExpectNear(At64(*out, 2), {std::exp(1.0f), 0});
  ExpectNear(At64(*out, 3), {1, 0});
  ExpectNear(At64(*out, 4), {std::sqrt(2.0f), std::sqrt(2.0f)});
}

TEST(ComplexOpsTest, Complex128ExpAndNeg) {
  Tensor x(DType::kComplex128, Shape({2}));
  const double vals[] = {0.5, -2, 0, 0};
  for (int i = 0; i < 4; ++i) x.data<double>()[i] = vals[i];
  auto e = RunOp("Exp", {x});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const C128 want = std::exp(C128(0.5, -2));
  EXPECT_DOUBLE_EQ(e->data<double>()[0], want.real());
  EXPECT_DOUBLE_EQ(e->data<double>()[1], want.imag());
  EXPECT_DOUBLE_EQ(e->data<double>()[2], 1);
  auto n = RunOp("Neg", {x});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->data<double>()[0], -0.5);
  EXPECT_EQ(n->data<double>()[1], 2);
}

TEST(ComplexOpsTest, MulBroadcastsAScalar) {
  // (1 + 2i) i = -2 + i, (3 - i) i = 1 + 3i; as the DCT's 2 * exp(...) and
  // rfft * scale, over a [2, 2] by [2] broadcast too.
  auto out = RunOp("Mul", {Complex64({{1, 2}, {3, -1}}), Complex64({{0, 1}}, Shape({}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectNear(At64(*out, 0), {-2, 1});
  ExpectNear(At64(*out, 1), {1, 3});
  auto rows = RunOp("Mul", {Complex64({{1, 0}, {0, 1}, {2, 0}, {1, 1}}, Shape({2, 2})), Complex64({{2, 0}, {0, -1}})});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->shape(), Shape({2, 2}));
  ExpectNear(At64(*rows, 0), {2, 0});
  ExpectNear(At64(*rows, 1), {1, 0});
  ExpectNear(At64(*rows, 2), {4, 0});
  ExpectNear(At64(*rows, 3), {1, -1});
}

TEST(ComplexOpsTest, AddSubAndDivision) {
  Tensor a = Complex64({{1, 2}}), b = Complex64({{3, 4}});
  auto sum = RunOp("AddV2", {a, b});
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  ExpectNear(At64(*sum, 0), {4, 6});
  auto diff = RunOp("Sub", {a, b});
  ASSERT_TRUE(diff.ok()) << diff.status().ToString();
  ExpectNear(At64(*diff, 0), {-2, -2});
  // (1 + 2i) / (3 + 4i) = (1 + 2i)(3 - 4i) / 25 = (11 + 2i) / 25.
  for (const char* op : {"RealDiv", "Div"}) {
    auto q = RunOp(op, {a, b});
    ASSERT_TRUE(q.ok()) << op << ": " << q.status().ToString();
    ExpectNear(At64(*q, 0), {11.0f / 25, 2.0f / 25});
  }
  // Division by zero follows IEEE arithmetic (no integer-style error).
  auto inf = RunOp("RealDiv", {a, Complex64({{0, 0}})});
  ASSERT_TRUE(inf.ok()) << inf.status().ToString();
  EXPECT_FALSE(std::isfinite(At64(*inf, 0).real()));
}

TEST(ComplexOpsTest, RealInputsStillUseTheRealKernels) {
  auto out = RunOp("Mul", {Tensor::FromVector<float>({1.5f, -2}), Tensor::Scalar(2.0f)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(*out, Tensor::FromVector<float>({3, -4})));
  auto e = RunOp("Exp", {Tensor::FromVector<double>({0})});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->data<double>()[0], 1);
}

TEST(ComplexOpsTest, MismatchedInputsAreErrors) {
  auto mixed = RunSingleOp("Mul", {Complex64({{1, 0}}), Tensor::FromVector<float>({1})},
                           {{"T", MakeAttr(DType::kComplex64)}});
  TFHOST_ASSERT_ERROR(mixed, StatusCode::kInvalidArgument,
                      "node 'test_Mul' (Mul): input 1 'y' (dtype from attr T) is float32, expected complex64");
  EXPECT_NE(mixed.status().message().find("Mul"), std::string::npos) << mixed.status().message();
  EXPECT_NE(mixed.status().message().find("is float32, expected complex64"), std::string::npos)
      << mixed.status().message();
  auto shapes = RunOp("AddV2", {Complex64({{1, 0}, {2, 0}}), Complex64({{1, 0}, {2, 0}, {3, 0}})});
  TFHOST_ASSERT_ERROR(shapes, StatusCode::kInvalidArgument, "incompatible shapes for broadcasting: [2] and [3]");
  // Ops without complex kernels still say so (Sqrt's schema allows no complex T).
  auto sqrt = RunOp("Sqrt", {Complex64({{1, 0}})});
  TFHOST_ASSERT_ERROR(sqrt, StatusCode::kInvalidArgument,
                      "node 'test_Sqrt' (Sqrt): attr 'T' is DT_COMPLEX64, which is not one of its allowed types");
}

}  // namespace
}  // namespace tfhost::ops
