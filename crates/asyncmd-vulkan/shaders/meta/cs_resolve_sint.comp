// Colour MIN/MAX resolves of signed integer formats (which Vulkan's resolve commands lack):
// each texel of a rectangle of the destination (sint view, storage, push descriptor 0) gets the
// minimum (mode 1) or maximum (mode 2) of the samples of the source's texel (multisampled sint
// view, sampled, descriptor 1), channel by channel. One thread a texel, 16 × 16 a workgroup.
#version 450

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) uniform writeonly iimage2D dst;
layout(set = 0, binding = 1) uniform isampler2DMS src;

layout(push_constant) uniform Constants {
    uvec2 src_offset;
    uvec2 dst_offset;
    uvec2 extent;
    uint mode;
    uint samples;
} pc;

#define COMBINE(N) \
    for (int s = 1; s < (N); s++) { \
        ivec4 v = texelFetch(src, at, s); \
        lo = min(lo, v); \
        hi = max(hi, v); \
    }

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= pc.extent.x || p.y >= pc.extent.y) {
        return;
    }
    ivec2 at = ivec2(pc.src_offset + p);
    ivec4 first = texelFetch(src, at, 0);
    ivec4 lo = first;
    ivec4 hi = first;
    // Loops of a constant count for the usual sample counts: unrolled, every fetch of a texel is
    // in flight at once.
    switch (pc.samples) {
    case 2u:
        COMBINE(2);
        break;
    case 4u:
        COMBINE(4);
        break;
    case 8u:
        COMBINE(8);
        break;
    default:
        COMBINE(int(pc.samples));
        break;
    }
    ivec4 result = pc.mode == 1u ? lo : hi;
    imageStore(dst, ivec2(pc.dst_offset + p), result);
}
