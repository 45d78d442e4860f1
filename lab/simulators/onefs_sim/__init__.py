"""OneFS Platform API simulator of the dlcluster lab (see __main__ for its command line).

Sources (named in brackets in the modules):
- isilon-sdk: Dell's generated Python SDK for OneFS 9.5-9.12, PyPI isilon-sdk 0.7.0
  (isilon_sdk/v9_*_0: configuration.py, api_client.py, rest.py, the api/*_api.py methods
  and their docstrings, models/*.py), and PyPI isi-sdk-9-1-0 0.2.12 for OneFS 9.1;
- PAPI schemas: the raw `?describe` schemas in github Isilon/isilon_sdk, papi_schemas/
  (7.2.1.6.json, 8.0.1.2.json);
- OneFS API Reference: Dell's "PowerScale OneFS API Reference" ("API versions in OneFS",
  "Session cookies", "Implement CSRF authentication") and Dell KB 517421 (the X-CSRF-Token
  and Referer headers that security patches require, as a Dell community post quotes it);
- dellemc.powerscale: github dell/ansible-powerscale (collection 3.9.1 and the job modules
  of 4.0.0), plugins/modules/*.py and plugins/module_utils/storage/dell/*.py;
- terraform provider: github dell/terraform-provider-powerscale, powerscale/helper/*.go
  and docs/resources/*.md;
- gopowerscale: github dell/gopowerscale, api/api.go;
- isi_rest_server: a public copy of OneFS's isi_rest_server C++ source found by code search
  (repository not named, age unknown): uri_mapper.cpp (versioned_mapper), api_error.h and
  api_error.c (codes per HTTP status, errno mapping);
- issues: github Isilon/isilon_sdk_python#6 (a 404 body from OneFS 8.0.0.4),
  thecodeteam/goisilon#37, dell/csm#852 (a login POST with a trailing slash is 404);
- the papers (docs/papers.md): seed 000 §"Storage Tiering" and seed 001 (SmartPools runs
  daily at 22:00 by default; `isi get -D` output), seed 000 Appendix C (`isi statistics
  system` and `isi statistics pstat` output);
- statistics keys: github Isilon/isilon_stat_browser (web_app/js/keys.js, Dell's key dump
  of a OneFS 8.0-era cluster) and github Isilon/isilon_data_insights_connector (the keys
  and protostats fields it reads).
What no source shows is marked unverified where it is used.
"""
