// Native texture copies where compute wins: copies a rectangle of a placed footprint in a
// buffer into a 2D subresource, through an unsigned-integer storage view of the texel's size
// (push descriptor 0). `src` is the footprint's texel at the rectangle's origin; texels of 1 or 2
// bytes are read from their dword, those of 8 and 16 bytes whole (the device passes addresses
// and pitches aligned to the texel size). A workgroup covers 256 × 4 texels: each thread copies
// four texels of its row, 64 apart.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0) uniform writeonly uimage2D dst;

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Dword {
    uint v;
};

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Pair {
    uvec2 v;
};

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Quad {
    uvec4 v;
};

layout(push_constant) uniform Constants {
    uint64_t src;
    uvec2 dst_offset;
    uvec2 extent;
    uint row_pitch;
    uint texel_bytes;
} pc;

uvec4 texel(uint x, uint y) {
    uint64_t at = pc.src + uint64_t(y) * pc.row_pitch + uint64_t(x) * pc.texel_bytes;
    switch (pc.texel_bytes) {
    case 16u:
        return Quad(at).v;
    case 8u:
        return uvec4(Pair(at).v, 0u, 0u);
    case 4u:
        return uvec4(Dword(at).v, 0u, 0u, 0u);
    default: {
        uint word = Dword(at & ~uint64_t(3)).v;
        uint shift = uint(at & uint64_t(3)) * 8u;
        uint mask = pc.texel_bytes == 1u ? 0xffu : 0xffffu;
        return uvec4((word >> shift) & mask, 0u, 0u, 0u);
    }
    }
}

void main() {
    uint y = gl_GlobalInvocationID.y;
    if (y >= pc.extent.y) {
        return;
    }
    uint x0 = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x;
    for (uint k = 0u; k < 4u; k++) {
        uint x = x0 + k * 64u;
        if (x < pc.extent.x) {
            imageStore(dst, ivec2(pc.dst_offset + uvec2(x, y)), texel(x, y));
        }
    }
}
