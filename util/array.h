/*
 * array — room for one more element in a growable array.
 *
 * The arrays of this code base are a pointer, a count and a capacity in
 * one struct, grown by doubling. ARRAY_RESERVE(v, n, cap, first) makes
 * room for element n of v: when n == cap it reallocates v to twice cap
 * (first elements the first time), with the element type taken from v.
 * It evaluates to 0, or to -1 when out of memory, leaving v and cap as
 * they were (the elements stay valid). Each argument is an lvalue
 * evaluated more than once: pass plain names or fields, no side effects.
 */
#ifndef ATTNJUDGE_ARRAY_H
#define ATTNJUDGE_ARRAY_H

#include <stdlib.h>

#define ARRAY_RESERVE(v, n, cap, first)                                                            \
    __extension__({                                                                                \
        int array_rc_ = 0;                                                                         \
        if ((n) == (cap)) {                                                                        \
            size_t array_cap_ = (cap) ? (size_t)(cap)*2 : (size_t)(first);                         \
            __typeof__(v) array_v_ = realloc((v), array_cap_ * sizeof *(v));                       \
            if (array_v_) {                                                                        \
                (v) = array_v_;                                                                    \
                (cap) = array_cap_;                                                                \
            } else {                                                                               \
                array_rc_ = -1;                                                                    \
            }                                                                                      \
        }                                                                                          \
        array_rc_;                                                                                 \
    })

#endif
