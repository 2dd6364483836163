/* The sample kit's fixed loader, carried inside attnjudge and written into
 * every sample archive (judge/samples.c). Paths are relative to the
 * repository root, where make runs. */
    .section .rodata
    .global attnjudge_caseio_c_src
attnjudge_caseio_c_src:
    .incbin "judge/kit/caseio.c"
    .byte 0
    .global attnjudge_caseio_h_src
attnjudge_caseio_h_src:
    .incbin "judge/kit/caseio.h"
    .byte 0
    .section .note.GNU-stack,"",@progbits
