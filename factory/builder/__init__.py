"""The builder: a seed becomes a spec (`build`), and its base rows are planned (`seeddata`)."""
