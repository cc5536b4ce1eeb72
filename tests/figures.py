"""Checks on drawn matplotlib figures that several test files share."""


def outside(fig) -> list:
    """What of a drawn figure reaches past its edges: the sides of the
    bounding box of all it draws (what savefig's bbox_inches="tight" would
    keep) that lie outside the figure; [] when everything is inside."""
    fig.canvas.draw()
    box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    width, height = fig.get_size_inches()
    eps = 0.01
    return [side for side, out in (("left", box.x0 < -eps), ("bottom", box.y0 < -eps),
                                   ("right", box.x1 > width + eps), ("top", box.y1 > height + eps)) if out]
