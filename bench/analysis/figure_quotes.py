"""figure_quotes - where the texts quote figures (read by bench/analysis/figures.py).

QUOTES: (file pattern, sentence): the sentence, with {NAME} where a figure
of bench/analysis/figures.py goes, must be in every file the pattern matches (after
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
    "docs/mutants.md": "what tests/mutants printed (each check's own failing line on a "
                       "deliberately broken kernel), written by its --doc; no figure of the series",
    "docs/model.md": "the paper model's parameters (bench/model/model_sim.py), no measurement; its "
                     "measured anchors are in docs/results/7.3.md",
}

P4 = "patches/0003-mm-page_alloc-add-vm.pcp_batch_scale_max-*.patch"
P5 = "patches/0004-mm-page_alloc-let-percpu_pagelist_high_fraction-*.patch"
CL3 = "patches/cover-letter-3.txt"

P1 = "patches/*0001-mm-page_alloc-keep-pcp-free_count-*.patch"
P1_73 = "patches/0001-mm-page_alloc-keep-pcp-free_count-*.patch"
P2_73 = "patches/0002-mm-page_alloc-add-tracepoints-*.patch"
S612 = "patches/6.12/*"

CONSTS = [
    (CL3, "in instructions (1 ns each:", "scripts/vm's icount shift=0, a parameter"),
    (CL3, "up to 2.6% faster with a 2047-page batch", "52166607ecc9's Sapphire Rapids page_fault1 "
     "table (2047 against 63 pages), cited"),
    
    (CL3, "\"the max latency can be higher than 30ms\"; at 0 most calls took 2-16 us",
     "Yafang Shao's funclatency figures, quoted (spinics linux-mm msg395237)"),
    (CL3, "(90abee6d7895's NXP part: ~1 ms to 90-280 ms)", "the regression "
     "90abee6d7895 fixed, cited from its changelog"),
    (P4, "\"avg = 449775 nsecs, total: 587066511229 nsecs, count: 1305242\"",
     "Yafang Shao's funclatency output, quoted (spinics linux-mm msg395237)"),
    (CL3, "\"avg = 449775 nsecs\" over \"count: 1305242\" calls",
     "Yafang Shao's funclatency output, quoted (spinics linux-mm msg395237)"),
    (P4, "mmap 6 GiB, write every byte, close; \"Run this script 10 times in parallel\"",
     "Yafang Shao's reproducer, quoted (spinics linux-mm msg395237)"),
    (P4, "\"the max latency can be higher than 30ms\"; at 0 most calls took 2-16 us",
     "Yafang Shao's funclatency figures, quoted (spinics linux-mm msg395237)"),
    (P4, "(refills of at most 126 pages,", "batch << 1 with the usual batch of 63: the code's bound"),
    (CL3, "refills of at most 126 pages", "batch << 1 with the usual batch of 63: the code's bound"),
    ("*", "2016 pages", "batch << 5 with the usual batch of 63: the code's bound, not a measurement"),
    ("*", "(63 pages with the usual", "the usual pcp->batch: a code constant"),
    (CL3, "batch << 5 pages", "the code's bound"),
    (P1, "(1 << HPAGE_PMD_ORDER) - 1 pages", "0001's arithmetic on the code"),
    (P1, "86 times the bound", "0001's arithmetic on the code (64 KiB pages)"),
    (P1, "511 pages past the bound", "0001's arithmetic on the code"),
    (P1, "one hold of 512 pages against three holds of up to 638 pages",
     "0001's arithmetic on the code (the THP's list drained first: 512, then 63 and 63)"),
    ("patches/*-1-se*.patch", "2^31 pages", "zone_highsize()'s arithmetic"),
    ("patches/*", "about 6300 pages", "Yafang Shao's 256-CPU report (high - batch), cited"),
    ("patches/review-response.md", "no drain above 1000 pages", "Joshua Hahn's 176-CPU data, cited"),
    ("patches/0005-selftests-*.patch", "arms an alarm 5 s before",
     "the kselftest's own margin before the harness timeout, a parameter"),
    (CL3, "\"to restrict the allocation/freeing latency to be less than 100 us in most times, "
          "the max batch scale factor needs to be less than or equal to 5\"",
     "52166607ecc9's changelog, quoted (its posting 20230926060911.266511-5-ying.huang@intel.com)"),
    (CL3, "no drain above 1000 pages", "Joshua Hahn's 176-CPU data, cited"),
    (CL3, "faulting one page every 500 us", "the RT task's period, a parameter of the load"),
    ("*", "every 20 ms", "the pcp instrument's sampling period, a parameter"),
    (CL3, "~14 minutes at 5 and ~10 at 0", "Claudiu Beznea's bonnie++ figures, cited "
     "(20241126095138.1832464-1-claudiu.beznea.uj@bp.renesas.com)"),
    (P5, "from 3.07 ms to 104 us", "Yafang Shao's 256-CPU report, cited"),
    (P4, "faulting one page every 500 us", "the RT task's period, a parameter of the load"),
    (P4, "~14 minutes after commit", "Claudiu Beznea's bonnie++ figures, "
     "cited from his RFC (20241126095138.1832464-1-claudiu.beznea.uj@bp.renesas.com)"),
    (P4, "takes ~14 minutes while", "Claudiu Beznea's RFC, quoted"),
    (P4, "\"to restrict the allocation/freeing latency to be less than 100 us in most times, "
         "the max batch scale factor needs to be less than or equal to 5\"",
     "52166607ecc9's changelog, quoted (its posting 20230926060911.266511-5-ying.huang@intel.com)"),
    (P4, "up to 2.6% faster with a 2047-page batch", "52166607ecc9's Sapphire Rapids page_fault1 "
     "table (2047 against 63 pages), cited"),
    (P1, "(189 pages at batch 63)", "0001's arithmetic (three batches of 63); tests/mutants measured "
     "it (docs/mutants.md, 0001-reverted)"),
    (P4, "it takes ~10 minutes", "Claudiu Beznea's RFC, quoted"),
    # sizes: of pages, of the guests and loads we run, of the harness's disk,
    # and of other people's machines, cited
    ("*", "with 4 KiB pages", "the x86 page size, a constant"),
    ("*", "with 64 KiB pages", "the arm64 64K-page configuration, a constant"),
    ("*", "with batch 63 and 4 KiB pages, 2 PiB per CPU", "zone_highsize()'s arithmetic on the code"),
    ("*", "2 vCPUs and 4 GiB each", "the guests' memory, a parameter of scripts/vm"),
    ("*", "2 vCPUs unless said, 4 GiB)", "the guests' memory, a parameter of scripts/vm"),
    ("*", "2 vCPUs, 4 GiB.", "the guests' memory, a parameter of scripts/vm"),
    ("docs/harness.md", "~2 GiB unpacked base, ~2 GiB `linux/` (git), ~0.5 GiB per guest kernel",
     "the harness's disk use, no measurement of a kernel"),
    ("docs/harness.md", "(~3 GiB). ccache (5 GiB)", "the harness's disk use and ccache's size setting"),
    ("patches/*0005-selftests-*.patch", "unmapping 32 MiB twice", "the kselftest's load, a parameter"),
    ("patches/*0005-selftests-*.patch", "faulting in 32 MiB page by page", "the kselftest's refill-count load, a parameter"),
    ("patches/*", "(256 CPUs, 1 TB,", "Yafang Shao's machine, cited from his report"),
    ("patches/6.12/*", "processes of ~6 GB each", "Yafang Shao's workload, cited from his report"),
    (P4, "RZ/G3S (1 GiB,", "Claudiu Beznea's board, cited from his RFC"),
    ("patches/review-response.md", "~14 minutes after 52166607ecc9 against ~10 before",
     "Claudiu Beznea's bonnie++ figures, cited from his RFC"),
    ("patches/review-response.md", "benchmark takes ~14 minutes while with pcp_batch_scale_max=0 "
     "it takes ~10 minutes", "Claudiu Beznea's RFC, quoted"),
]

# Sentences that 0003's changelog and cover letter 3 share.
Q_SETUP = ("vCPU while four processes fault in and exit, and while four map, write "
           "and unmap 32 MiB each ({p_reps} runs each, 2026-12-06-7.3-quoted.json).")
Q_COST = ("Cost: the loaded CPU's time (pf1: will-it-scale page_fault1 in one process, per "
          "page), medians of {p_reps} runs, from docs/results/2026-12-06-7.3-quoted.json:")
Q_HOLDERS = ("rmqueue_bulk()'s hold in every run ({irq_holders_def}); at knob 1 it is a refill "
             "or a pcp free ({irq_holders_k1}), at 0 mostly a pcp free ({irq_holders_k0}).")
Q_RT = ("The RT task's worst fault in that file (icount; under TCG the host's scheduling sets it): "
        "{rt_summary}.")


# 0003 says which path holds the longest section and what the RT task
# saw unpatched; the letter sends the reader there
Q_PCP3 = ("During the refill load {pcp_short} (medians and ranges of {pc_reps} runs, icount, "
          "docs/results/2026-12-03-pcp-icount.json; its .md has every setting).")


SHARED = [Q_SETUP, Q_COST, "{knob_vs_fraction}"]

QUOTES = [(P4, t) for t in SHARED + [Q_HOLDERS, Q_RT]] + [
    (P4, Q_PCP3),
    (P4, "(2026-12-06-7.3-quoted.json, icount, {p_reps} runs each) the series at its defaults "
         "took {default_vs_base}. By patch"),
    (P4, "(2026-12-07-7.3-attr-0001.json and 2026-12-07-7.3-attr-0013.json, icount, 5 runs each), "
         "the exit storm took {storm_attr}: most of the cost is already there with 0001 alone"),
    (P4, "below the amount unpatched's own median moved between runs (unpatched's medians in the three files, "
         "run on two hosts: {storm_base_spread}), so these runs cannot tell it from zero."),
    (P2_73, "with CONFIG_JUMP_LABEL=y, in mm/page_alloc.o {bloat_jl}, and bloat-o-meter counts "
            "{bloat_jl_vmlinux} bytes more of vmlinux's symbols (the events' code and tables, "
            "kallsyms' names); without it {bloat_nojl}, and {bloat_nojl_vmlinux} of vmlinux's."),
    (P4, "free (docs/results/2026-12-07-7.3-free-high-icount.json, icount, {fhi_reps} runs each), "
         "free_high was set by {fh_icount}; untraced in the same boot knob 1 received {fh_net}"),
    ("patches/review-response.md", "Under TCG free_high was set by, per run: {fh_tcg}. The checks: "
     "{fh_checks}."),
    (CL3, "turns off free_high's early trim, which in iperf3 fired {fh_cover} (icount, "
          "2026-12-07-7.3-free-high-icount.json)."),
    (P1_73, "(docs/results/2026-12-07-7.3-attr-0001.json, {a1_reps} runs each, unpatched booted in "
            "the same run), an untraced exit storm at the defaults took {storm_0001}; unpatched's median "
            "moved over {storm_base_spread} in three such runs on two hosts (2026-12-07-7.3-attr-0013.json, "
            "2026-12-06-7.3-quoted.json)."),
    (P4, "knob 0 change page_fault1/2 throughput by {c_pf_knobs} against the default, the "
         "fraction 2147483647 by {c_pf_frac};"),
    (P4, "At its defaults the series costs nothing measurable in the regression probes "
         "(2026-12-03-probes-icount.json; icount, each run; in brackets the series' time per "
         "operation against unpatched's, + = slower): {default_cost}."),
    # cover letter 3: the knob's case on 7.3 (2026-12-05-7.3-case.json)
    (CL3, "{case_paths}"),
    (CL3, "high-order frees {case_hi_max} at most, no drain ran; at the default "
          "{case_big_refills} refills moved 1000 pages or more."),
    (CL3, "every setting in one run, {c_reps} runs each, icount but the tcg rows"),
    (CL3, "{case_cost}"),
    (CL3, "Under TCG kbuild at knob 1 took {c_kbuild}, and its sys time, where more lock trips "
     "would show, scattered, as knob 0's and the fraction's did: noise or a cost, we cannot tell."),
    (CL3, "cyclictest on that vCPU during untraced runs; icount, {c_reps} runs each, pooled:"),
    (CL3, "{case_yafang}"),
    (CL3, "(unmovable pages in the holes), icount, {c_reps} runs each: at the default, knob 1, knob 0 "
          "and the fraction {case_frag}: the longest hold grows with the bound"),
    (CL3, "show it (TCG, {c_wait_runs} runs per setting"),
    (CL3, "{case_contention}"),
    (CL3, "At knob 0 {case_k0_decay} for the same pages: not attributed (TCG)."),
        (CL3, "with the pcp lock dropped, waits in the refill load rose as at knob 0: {chunked_waits}."),
    (CL3, "The worst fault per run of an RT task on the refilling CPU, refill load, icount: "
          "{chunked_rt}."),
    (CL3, "Waits per run, median [range], the fraction's too: "
          "{case_wait_counts}, inside the holds: a direction only."),
    (P5, "{hf_cost}"),
    (P5, "guest time counts instructions executed; {p_reps} runs each, one kernel, every setting in "
         "one benchmark run"),
    ("patches/6.12/cover-letter.txt", "the largest bulk free moved {s612_free_pages}"),
    ("patches/6.12/0003-*.patch", "the largest bulk free moved {s612_free_pages}"),
    ("README.md", "{knob_vs_fraction}"),
]

# Qualitative claims that rest on a measurement (issue 38, 5): wherever one
# of these is said, its sentence names the table it rests on: a results
# file (NAME.json, NAME.md) or a table of the text ("the table above",
# "Table: ...").  Lower case, whitespace collapsed; regular expressions.
QUALITATIVE = [
    r"no (?:extra|more|additional) instructions",
    r"(?:no|not) (?:slower|faster)\b",
    r"as fast as",
    r"costs? nothing",
    r"nothing measurable",
    r"no (?:measurable|visible|significant) (?:cost|difference|change|effect|regression)",
    r"no regression\\b(?! probes)",
    r"within (?:the )?(?:noise|spread|runs' spread)",
    r"beyond the runs' spread",
    r"cannot tell the settings apart",
    r"showed no cost",
    r"many times as often",
    r"overlap from run to run",
    r"below every unpatched run's",
]
# What names a table in a sentence.
NAMES_TABLE = r"\b[\w.-]+\.(?:json|md)\b|\btables?\b"

