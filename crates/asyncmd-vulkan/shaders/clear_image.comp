// Native ClearTextureSubresources where compute wins (the H200): stores the encoded texel, as
// raw bits through an unsigned-integer view of the same texel size, over a rectangle of one
// subresource. The view comes as push descriptor 0.
#version 450

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = 0) uniform writeonly uimage2D img;

layout(push_constant) uniform Constants {
    uvec4 value;
    uvec2 offset;
    uvec2 extent;
} pc;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= pc.extent.x || p.y >= pc.extent.y) {
        return;
    }
    imageStore(img, ivec2(pc.offset + p), pc.value);
}
