"""Box predicates of the pure core (`flowpath.geometry`)."""
from hypothesis import given
from hypothesis import strategies as st

from flowpath.geometry import box_holds

coord = st.integers(min_value=0, max_value=60)


@st.composite
def boxes(draw):
    x0, x1 = sorted((draw(coord), draw(coord)))
    y0, y1 = sorted((draw(coord), draw(coord)))
    return (x0, y0, x1 + 1, y1 + 1)


def _area(box):
    return (box[2] - box[0]) * (box[3] - box[1])


@given(boxes(), boxes())
def test_a_box_is_held_exactly_when_the_other_covers_all_of_it(outer, inner):
    ix = max(0, min(outer[2], inner[2]) - max(outer[0], inner[0]))
    iy = max(0, min(outer[3], inner[3]) - max(outer[1], inner[1]))
    assert box_holds(outer, inner) == (ix * iy == _area(inner))


def test_a_box_sticking_out_by_one_pixel_on_any_side_is_not_held():
    assert box_holds((0, 0, 10, 10), (2, 2, 10, 10))
    for grown in ((-1, 2, 10, 10), (2, -1, 10, 10), (2, 2, 11, 10), (2, 2, 10, 11)):
        assert not box_holds((0, 0, 10, 10), grown)
