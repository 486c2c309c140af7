// Native ClearTextureSubresources where compute wins (the H200): stores the encoded texel, as
// raw bits through an unsigned-integer view of the same texel size, over a rectangle of one
// subresource. The view comes as push descriptor 0. A workgroup covers 256 × 4 texels: each
// thread stores four texels of its row, 64 apart, so neighbouring threads store neighbouring
// texels at every step.
#version 450

layout(local_size_x = 64, local_size_y = 4) in;

layout(set = 0, binding = 0) uniform writeonly uimage2D img;

layout(push_constant) uniform Constants {
    uvec4 value;
    uvec2 offset;
    uvec2 extent;
} pc;

void main() {
    uint y = gl_GlobalInvocationID.y;
    if (y >= pc.extent.y) {
        return;
    }
    uint x0 = gl_WorkGroupID.x * 256u + gl_LocalInvocationID.x;
    for (uint k = 0u; k < 4u; k++) {
        uint x = x0 + k * 64u;
        if (x < pc.extent.x) {
            imageStore(img, ivec2(pc.offset + uvec2(x, y)), pc.value);
        }
    }
}
