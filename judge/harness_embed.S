/* The harness runtime's source text, carried inside attnjudge and written
 * into every compile sandbox (judge/harness.c). Paths are relative to the
 * repository root, where make runs. */
    .section .rodata
    .global attnjudge_harness_rt_src
attnjudge_harness_rt_src:
    .incbin "judge/harness_rt.c"
    .byte 0
    .global attnjudge_harness_proto_src
attnjudge_harness_proto_src:
    .incbin "judge/harness_proto.h"
    .byte 0
    .section .note.GNU-stack,"",@progbits
