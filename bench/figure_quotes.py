"""figure_quotes - where the texts quote figures (read by bench/figures.py).

QUOTES: (file pattern, sentence): the sentence, with {NAME} where a figure
of bench/figures.py goes, must be in every file the pattern matches (after
collapsing whitespace; a patch's commit message only).
CONSTS: (file pattern, literal, why): numbers with a unit that are no
measurement of ours: parameters of a load, figures cited from elsewhere,
code constants.
SCANNED: the texts a reader gets; EXEMPT: those left out, and why.
"""
SCANNED = ["README.md", "docs/*.md", "docs/experiments/*.md", "patches/*.txt",
           "patches/*.patch", "patches/*.md", "patches/6.12/*.txt", "patches/6.12/*.patch"]

EXEMPT = {
    "docs/check-times.md": "how long make check takes: the harness's own timings, from its "
                           "logs, no measurement of a kernel",
    "docs/model.md": "the paper model's parameters (bench/model_sim.py), no measurement; its "
                     "measured anchors are in docs/results/7.3.md",
}

P4 = "patches/0003-mm-page_alloc-add-vm.pcp_batch_scale_max-*.patch"
P5 = "patches/0004-mm-page_alloc-let-percpu_pagelist_high_fraction-*.patch"
CL3 = "patches/cover-letter-3.txt"

CONSTS = [
    ("patches/0005-selftests-*.patch", "arms an alarm 5 s before",
     "the kselftest's own margin before the harness timeout, a parameter"),
    (CL3, "faulting one page every 500 us", "the RT task's period, a parameter of the load"),
    (CL3, "went above 60 us", "the threshold of rt_exit_outliers"),
    (CL3, "about 14 minutes at 5 against 10", "Claudiu Beznea's bonnie++ figures, cited"),
    (P5, "from 3.07 ms to 104 us", "Yafang Shao's 256-CPU report, cited"),
    (P4, "faulting one page every 500 us", "the RT task's period, a parameter of the load"),
    (P4, "went above 60 us", "the threshold of rt_exit_outliers"),
    (P4, "about 14 minutes at 5 against 10", "Claudiu Beznea's bonnie++ figures, cited from his RFC"),
]

QUOTES = [
    (P4, "their traced runs saw no drain hold ({p_drain_holds} in all runs)"),
    (CL3, "their traced runs saw no drain hold ({p_drain_holds} in all runs)"),
    ("README.md", "{knob_vs_fraction}"),
    (CL3, "{knob_vs_fraction}"),
    (CL3, "rmqueue_bulk()'s hold in every run ({irq_holders_def}); at knob 0 it is a 63-page "
          "free ({irq_holders_k0})"),
    (CL3, "The RT task's worst fault was {rt_refill_unpatched} us unpatched in the refill load, "
          "{rt_exit_unpatched} us in the exit storm; in the exit storm some runs went above 60 us "
          "({rt_exit_outliers})"),
    (CL3, "the refill load took {tcg_refill}."),
    (CL3, "fraction -1 alike ({waits_refill_counts})"),
    (CL3, "({probe_per_wait_L}, per wait, in L)"),
    (CL3, "drain_all_pages() took, per call, {drain_all_pages_runs} (these kernels"),
    (P5, "{hf_cost}"),
    (P4, "{knob_vs_fraction}"),
    (P4, "rmqueue_bulk()'s hold in every run ({irq_holders_def}); at knob 1 it is a refill "
         "or a pcp free ({irq_holders_k1}), at 0 a 63-page free ({irq_holders_k0})"),
    (P4, "The RT task's worst fault was {rt_refill_unpatched} us unpatched in the refill load, "
         "{rt_exit_unpatched} us in the exit storm; in the exit storm some runs went above 60 us "
         "({rt_exit_outliers})"),
    (P4, "the refill load took {tcg_refill}."),
    (P4, "fraction -1 alike ({waits_refill_counts})"),
    (P4, "drain_all_pages() took, per call, {drain_all_pages_runs} (these kernels"),
]
