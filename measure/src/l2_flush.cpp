#include <memtune/cuda/launch.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/measure/l2_flush.hpp>

#include <algorithm>
#include <vector>

namespace memtune {
namespace {

// nvcc -ptx of the kernel below, its header lowered to PTX 6.0 / sm_50 so
// that any driver since CUDA 10 JIT-compiles it for the GPU at hand (checked
// with ptxas for sm_75, sm_80 and sm_90):
//
//   extern "C" __global__ void memtune_read_flush(const float4* __restrict__ p, unsigned long long n4, float* sink) {
//     float acc = 0.0f;
//     for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n4;
//          i += (unsigned long long)gridDim.x * blockDim.x) {
//       const float4 v = __ldcg(p + i); // cache in L2 only
//       acc += v.x + v.y + v.z + v.w;
//     }
//     if (acc == 1.2345f) *sink = acc; // never true for the buffer's ones
//   }
constexpr char kReadFlushPtx[] = R"ptx(
.version 6.0
.target sm_50
.address_size 64

.visible .entry memtune_read_flush(
	.param .u64 memtune_read_flush_param_0,
	.param .u64 memtune_read_flush_param_1,
	.param .u64 memtune_read_flush_param_2
)
{
	.reg .pred 	%p<4>;
	.reg .f32 	%f<12>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<16>;

	ld.param.u64 	%rd7, [memtune_read_flush_param_0];
	ld.param.u64 	%rd8, [memtune_read_flush_param_1];
	ld.param.u64 	%rd9, [memtune_read_flush_param_2];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	cvt.u64.u32 	%rd1, %r2;
	mul.wide.u32 	%rd10, %r1, %r2;
	mov.u32 	%r3, %tid.x;
	cvt.u64.u32 	%rd11, %r3;
	add.s64 	%rd15, %rd10, %rd11;
	setp.ge.u64 	%p1, %rd15, %rd8;
	@%p1 bra 	$L__BB0_5;

	mov.u32 	%r4, %nctaid.x;
	cvt.u64.u32 	%rd12, %r4;
	mul.lo.s64 	%rd3, %rd12, %rd1;
	cvta.to.global.u64 	%rd4, %rd9;
	mov.f32 	%f11, 0f00000000;

$L__BB0_2:
	shl.b64 	%rd14, %rd15, 4;
	add.s64 	%rd13, %rd7, %rd14;
	ld.global.cg.v4.f32 {%f4,%f5,%f6,%f7}, [%rd13];
	add.f32 	%f8, %f4, %f5;
	add.f32 	%f9, %f6, %f8;
	add.f32 	%f10, %f7, %f9;
	add.f32 	%f11, %f11, %f10;
	add.s64 	%rd15, %rd15, %rd3;
	setp.lt.u64 	%p2, %rd15, %rd8;
	@%p2 bra 	$L__BB0_2;

	setp.neu.f32 	%p3, %f11, 0f3F9E0419;
	@%p3 bra 	$L__BB0_5;

	mov.u32 	%r5, 1067320345;
	st.global.u32 	[%rd4], %r5;

$L__BB0_5:
	ret;
}
)ptx";

// 1024 blocks of 512 threads: four blocks per SM on GPUs of up to 256 SMs,
// enough loads in flight to read the buffer at DRAM speed.
constexpr unsigned kBlock = 512, kGrid = 1024;

} // namespace

std::string_view to_string(FlushKind kind) { return kind == FlushKind::clean ? "clean" : "dirty"; }

L2Flush::L2Flush(std::size_t l2_bytes, FlushKind kind)
    : kind_(kind), buffer_(std::max<std::size_t>(2 * l2_bytes, 1 << 20) / 16 * 16) {
  buffer_.fill_u32(0x3F800000U, nullptr); // ones: the read kernel's sum never hits its sentinel
  if (kind_ == FlushKind::dirty) return;
  sink_ = cuda::DeviceBuffer(sizeof(float));
  module_ = cuda::Module(std::vector<char>(std::begin(kReadFlushPtx), std::end(kReadFlushPtx))); // with its NUL
  read_ = module_.function("memtune_read_flush");
}

void L2Flush::enqueue(CUstream stream) {
  if (kind_ == FlushKind::dirty) {
    buffer_.fill_u32(0x3F800000U, stream);
    return;
  }
  CUdeviceptr p = buffer_.get(), sink = sink_.get();
  unsigned long long n4 = buffer_.bytes() / 16;
  void* args[] = {&p, &n4, &sink};
  LaunchSpec launch;
  launch.grid.x = kGrid;
  launch.block.x = kBlock;
  cuda::launch_kernel(read_, launch, stream, args);
}

} // namespace memtune
