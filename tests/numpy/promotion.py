"""What the numpy cross-checks share: numpy 1.24's legacy promotion for
np.where with a Python scalar."""
import numpy as np


def legacy(fn):
    """np.where is no ufunc: the weak state does not reach its Python scalars,
    and 1.24's value-based rule gives what NEP 50 does for a scalar that fits
    (the digest's where(c, i2arr, 0) -> i2), so with a scalar it runs in 1.24's
    mode (0-d arrays stay strong, as in NEP 50)."""
    set_state = getattr(np, "_set_promotion_state", None)
    if set_state is None:
        return fn()
    set_state("legacy")
    try:
        return fn()
    finally:
        set_state("weak")
