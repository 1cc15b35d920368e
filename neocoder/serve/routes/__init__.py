"""The HTTP API's routes, one module-level ``APIRouter`` per concern: judging programs
(judge.py), the callers' archives of scored programs (archives.py), the dataset's problems
(problems.py), jobs of any registered task (runs.py) and the service itself (service.py);
a benchmark's own routes (NeoCoder's eval jobs, evals.py) are named in its descriptor
(``Benchmark.routes``) and included with the others.  Each route takes what it
needs through the dependencies of deps.py; ``create_app`` (app.py) includes them all."""

from fastapi import Depends
from fastapi.security import HTTPBearer

from neocoder.serve.schemas import Problem

# every route but /healthz answers these (the bearer scheme shows in /openapi.json)
ERRORS = {401: {"model": Problem}, 404: {"model": Problem}, 409: {"model": Problem}, 413: {"model": Problem},
          422: {"model": Problem}, 429: {"model": Problem}, 503: {"model": Problem}}
SECURED = {"dependencies": [Depends(HTTPBearer(auto_error=False))], "responses": ERRORS}
