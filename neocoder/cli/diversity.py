"""``neocoder diversity validate``: each diversity measure against the hand-labelled pairs."""

from __future__ import annotations

import json
from pathlib import Path

import click

from neocoder.cli import main
from neocoder.cli.declared import declared_options
from neocoder.cli.options import model_options, release_option, sandbox_options
from neocoder.metrics.diversity.validate import ValidateConfig


@main.group("diversity")
def diversity_group():
    """Algorithm classes of programs: how far each measure can be trusted."""


@diversity_group.command("validate")
@release_option()
@declared_options(ValidateConfig, "fields")
@model_options(ValidateConfig, required=False,
               model_help="A judge model (PROVIDER/NAME) to score the LLM-judge measure too (Lee et al., EMNLP 2025).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the full report (every statistic, both halves) to this JSON file.")
@sandbox_options
@click.option("--summary", "summary_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the summary the report reads (each measure's held-out kappa) to this file; the "
              "shipped one is data/codeforces/algorithm_pairs/validity.json.")
def validate_command(release, fields, model, sandbox, json_out, summary_out):
    """Agreement, precision and recall of "same", and Cohen's kappa of every measure on the
    held-out half of the labelled algorithm pairs (docs/algorithm-pairs.md), with 95%
    intervals; thresholds are chosen on the tuning half."""
    from neocoder.metrics.diversity.validate import render, run_validation, summary
    report = run_validation(ValidateConfig(release_dir=release, model=model, sandbox=sandbox, **fields))
    click.echo(render(report))
    if json_out is not None:
        json_out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        click.echo(f"wrote {json_out}")
    if summary_out is not None:
        summary_out.write_text(json.dumps(summary(report), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        click.echo(f"wrote {summary_out}")


@diversity_group.command("train")
@release_option()
@click.option("--labels", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A labelled-pairs file (default: the shipped one; docs/algorithm-pairs.md).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where to write the classifier (the shipped one is "
              "data/codeforces/algorithm_pairs/classifier.json).")
def train_command(release, labels, out):
    """Fit the learned measure's classifier on the tuning half of the labelled pairs
    (needs scikit-learn: the `train` extra).  The same labelled set and release give
    the same file, byte for byte."""
    from neocoder.dataset.shipped import recorded_codes
    from neocoder.metrics.diversity import labelled
    from neocoder.metrics.diversity.train import file_sha256, train, write
    path = labels or labelled.shipped_path()
    problems = labelled.load(labelled.release_humans(release), recorded_codes(labelled.GPT4), path=path)
    content = train(problems, file_sha256(path))
    write(content, out)
    fitted = content["fitted_on"]
    click.echo(f"fitted on {fitted['pairs']} pairs ({fitted['different']} different) of {fitted['problems']} "
               f"tuning problems; threshold {content['threshold']} (cross-validated kappa {fitted['cv_kappa']}, "
               f"{fitted['model']}); wrote {out}")
