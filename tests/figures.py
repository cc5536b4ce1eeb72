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


def leaves_no_figure_open(draw, times: int = 25) -> bool:
    """Does calling ``draw()`` ``times`` times (more than pyplot's 20 before
    it warns "More than 20 figures") leave pyplot's list of open figures as
    it was, with no warning? The library draws on its own canvas, never
    pyplot's, so a loop making figures keeps none open."""
    import warnings

    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # but not numpy's deprecations that pandas' own code meets: pandas 2.0.0
        # and 2.0.1 call np.find_common_type (deprecated in numpy 1.25) to read a
        # frame of mixed columns row by row, as plot_report does
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"pandas\.")
        for _ in range(times):
            draw()
    return plt.get_fignums() == before
