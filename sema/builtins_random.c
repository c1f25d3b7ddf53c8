/* tl.rand, randn, randint and their 4x forms (Philox, as Triton's
 * tl.random). Needs: builtin.h's argument readers. */
#include "builtin.h"

#include <inttypes.h>
#include <string.h>

value b_random(checker *c, call *k) {
    tk_sx *seed = rt_arg(c, k, 0), *offset = rt_arg(c, k, 1);
    if (!seed || !offset) return v_error();
    if (ty_rank(seed->type) != 0 || !tk_dtype_is_int(elem_dtype(seed))) {
        sema_error(c, k->args[0].loc, "the seed of %s must be an integer scalar", k->name);
        return v_error();
    }
    if (ty_elem(offset->type)->kind != TK_TYPE_SCALAR || !tk_dtype_is_int(elem_dtype(offset))) {
        sema_error(c, k->args[1].loc, "the offsets of %s must be integers", k->name);
        return v_error();
    }
    int64_t rounds = 10;
    if (given(k, 2) && !const_int(c, k, 2, &rounds)) return v_error();
    /* each round is a few multiplications a value, unrolled */
    if (rounds < 0 || rounds > 64) {
        sema_error(c, k->args[2].loc, "n_rounds of %s must be between 0 and 64, not %" PRId64 " (Philox uses 10)",
                   k->name, rounds);
        return v_error();
    }
    const char *name = tk_sema_builtin_name(k->id);
    bool is_int = strncmp(name, "randint", 7) == 0;
    const tk_type *one = ty_with_elem(c, offset->type, ty_scalar(c, is_int ? TK_U32 : TK_F32));
    tk_sx *r = builtin_sx(c, k, one);
    sx_add_arg(c, r, seed);
    sx_add_arg(c, r, offset);
    if (strstr(name, "4x")) {
        /* all four words of each Philox block: a tuple of four */
        const tk_type *items[4] = {one, one, one, one};
        r->type = ty_tuple(c, 4, items);
        sx_add_attr_int(c, r, "n_rounds", rounds);
        return tuple_result(c, r);
    }
    sx_add_attr_int(c, r, "n_rounds", rounds);
    return result_rt(r);
}
