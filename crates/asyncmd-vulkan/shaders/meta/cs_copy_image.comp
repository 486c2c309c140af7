// Native texture copies where compute wins: copies a rectangle of one 2D subresource into
// another, texel bits unchanged, through unsigned-integer views of the texel's size (a sampled
// view of the source, push descriptor 1; a storage view of the destination, descriptor 0). A
// workgroup covers 256 × 4 texels: each thread copies four texels of its row, 64 apart.
#version 450

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0) uniform writeonly uimage2D dst;
layout(set = 0, binding = 1) uniform usampler2D src;

layout(push_constant) uniform Constants {
    uvec2 src_offset;
    uvec2 dst_offset;
    uvec2 extent;
} pc;

void main() {
    uint y = gl_GlobalInvocationID.y;
    if (y >= pc.extent.y) {
        return;
    }
    uint x0 = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x;
    uvec4 v[4];
    for (uint k = 0u; k < 4u; k++) {
        uint x = min(x0 + k * 64u, pc.extent.x - 1u);
        v[k] = texelFetch(src, ivec2(pc.src_offset + uvec2(x, y)), 0);
    }
    for (uint k = 0u; k < 4u; k++) {
        uint x = x0 + k * 64u;
        if (x < pc.extent.x) {
            imageStore(dst, ivec2(pc.dst_offset + uvec2(x, y)), v[k]);
        }
    }
}
