"""The baselines' known defects: the corpus's causes (``defects``) and the instance traits they
hinge on (``traits``), a failure matched with a corpus case (``known``), the repairs of each defect
in a candidate's source (``source_repair``, ``repaired``, ``repair_fit``, ``frozen_source``), and a
failure explained by them (``by_cause``)."""
