// Native texture copies where compute wins: copies a rectangle of a 2D subresource into a
// placed footprint in a buffer, through an unsigned-integer sampled view of the texel's size
// (push descriptor 1). `dst` is the footprint's texel at the rectangle's origin; texels are 4, 8
// or 16 bytes (whole dwords, so no two threads write one dword), at addresses and pitches the
// device aligned to them. A workgroup covers 256 × 4 texels: each thread copies four texels of
// its row, 64 apart.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 1) uniform usampler2D src;

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Dword {
    uint v;
};

layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer Pair {
    uvec2 v;
};

layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Quad {
    uvec4 v;
};

layout(push_constant) uniform Constants {
    uint64_t dst;
    uvec2 src_offset;
    uvec2 extent;
    uint row_pitch;
    uint texel_bytes;
} pc;

void main() {
    uint y = gl_GlobalInvocationID.y;
    if (y >= pc.extent.y) {
        return;
    }
    uint x0 = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x;
    for (uint k = 0u; k < 4u; k++) {
        uint x = x0 + k * 64u;
        if (x >= pc.extent.x) {
            break;
        }
        uvec4 v = texelFetch(src, ivec2(pc.src_offset + uvec2(x, y)), 0);
        uint64_t at = pc.dst + uint64_t(y) * pc.row_pitch + uint64_t(x) * pc.texel_bytes;
        if (pc.texel_bytes == 16u) {
            Quad(at).v = v;
        } else if (pc.texel_bytes == 8u) {
            Pair(at).v = v.xy;
        } else {
            Dword(at).v = v.x;
        }
    }
}
