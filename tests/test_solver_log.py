"""What solvers print goes to a log, never into a command's results on stdout.

HiGHS, under scipy's milp in torch's ilp_knapsack, writes to file descriptor 1 from C; it used to
land in the middle of `knapcheck check`'s output (14 lines in a default check).
"""

from knapcheck.cli import main


def test_solver_chatter_goes_to_the_log_not_stdout(tmp_path, capfd, selected_families_only):
    log = tmp_path / "solvers.log"
    main(["check", "--targets", "torch:ilp_knapsack", "--families", "tiny", "--per-family", "1", "--solver-log", str(log)])
    out, err = capfd.readouterr()
    assert "Highs" in log.read_text(), "the regression corpus's ilp_knapsack cases make HiGHS print"
    assert "Highs" not in out and "Highs" not in err
    assert out.splitlines()[0].startswith("21 instances")
    assert f"what the solvers printed is in {log}" in err


def test_an_empty_default_log_is_removed(capfd):
    main(["check", "--targets", "full_table", "--families", "tiny", "--per-family", "1"])
    assert "what the solvers printed" not in capfd.readouterr().err
