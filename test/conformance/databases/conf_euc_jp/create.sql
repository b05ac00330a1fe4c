-- An EUC_JP database (profile euc_jp): records must be UTF-8 all the same.
CREATE DATABASE conf_euc_jp TEMPLATE template0 ENCODING 'EUC_JP' LC_COLLATE 'C' LC_CTYPE 'C';
