// Native resolves of float, UNORM and SNORM formats where compute wins, and their MIN/MAX
// resolves (which Vulkan's resolve commands lack): each texel of a rectangle of the destination
// (a view of the resolve format, storage, push descriptor 0) gets the average (mode 0), minimum
// (mode 1) or maximum (mode 2) of the samples of the source's texel (a multisampled view,
// sampled, descriptor 1), channel by channel. One thread a texel, 16 × 16 a workgroup.
#version 450
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) uniform writeonly image2D dst;
layout(set = 0, binding = 1) uniform sampler2DMS src;

layout(push_constant) uniform Constants {
    uvec2 src_offset;
    uvec2 dst_offset;
    uvec2 extent;
    uint mode;
    uint samples;
} pc;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= pc.extent.x || p.y >= pc.extent.y) {
        return;
    }
    ivec2 at = ivec2(pc.src_offset + p);
    // Every sample's fetch is issued before any is used (the count is 2 to 16).
    vec4 v[16];
    [[unroll]] for (int s = 0; s < 16; s++) {
        if (s < int(pc.samples)) {
            v[s] = texelFetch(src, at, s);
        }
    }
    vec4 acc = v[0];
    vec4 lo = v[0];
    vec4 hi = v[0];
    [[unroll]] for (int s = 1; s < 16; s++) {
        if (s < int(pc.samples)) {
            acc += v[s];
            lo = min(lo, v[s]);
            hi = max(hi, v[s]);
        }
    }
    vec4 result = pc.mode == 0u ? acc / float(pc.samples) : (pc.mode == 1u ? lo : hi);
    imageStore(dst, ivec2(pc.dst_offset + p), result);
}
