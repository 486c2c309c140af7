// Reads every sample of a multisampled 2D subresource into a buffer (`ReadSamples`: no copy
// reaches samples), through an unsigned-integer sampled view of the texel's size (push
// descriptor 1). Texel (x, y)'s sample s goes to `dst` + ((y × width + x) × samples + s) × 16
// as four dwords; the host keeps the texel's bytes of them. One thread a texel, 16 × 16 a
// workgroup.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 1) uniform usampler2DMS src;

layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Quad {
    uvec4 v;
};

layout(push_constant) uniform Constants {
    uint64_t dst;
    uvec2 extent;
    uint samples;
} pc;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= pc.extent.x || p.y >= pc.extent.y) {
        return;
    }
    uint64_t first = (uint64_t(p.y) * pc.extent.x + p.x) * pc.samples;
    for (uint s = 0u; s < pc.samples; s++) {
        Quad(pc.dst + (first + s) * 16u).v = texelFetch(src, ivec2(p), int(s));
    }
}
